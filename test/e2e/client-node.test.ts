/**
 * CRUD with @kubernetes/client-node, a real client library, against a
 * server started from the quick-start defaults.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import * as k8s from '@kubernetes/client-node';
import { startTestServer, type TestServer } from '../support/test-server.ts';

describe('REST API with @kubernetes/client-node', () => {
  let t: TestServer;
  let core: k8s.CoreV1Api;
  let apps: k8s.AppsV1Api;
  before(async () => {
    t = await startTestServer();
    const kc = new k8s.KubeConfig();
    kc.loadFromFile(t.kubeconfig);
    core = kc.makeApiClient(k8s.CoreV1Api);
    apps = kc.makeApiClient(k8s.AppsV1Api);
  });
  after(async () => {
    await t?.stop();
  });

  it('creates, reads, lists, replaces and deletes a ConfigMap', async () => {
    const created = await core.createNamespacedConfigMap({
      namespace: 'default',
      body: { metadata: { name: 'cn', labels: { team: 'a' } }, data: { k: 'v1' } },
    });
    assert.equal(created.metadata?.name, 'cn');
    assert.ok(created.metadata?.resourceVersion);
    const read = await core.readNamespacedConfigMap({ name: 'cn', namespace: 'default' });
    assert.equal(read.data?.['k'], 'v1');
    const listed = await core.listNamespacedConfigMap({ namespace: 'default', labelSelector: 'team=a' });
    assert.deepEqual(listed.items.map((c) => c.metadata?.name), ['cn']);
    assert.ok(listed.metadata?.resourceVersion);
    read.data = { k: 'v2' };
    const replaced = await core.replaceNamespacedConfigMap({ name: 'cn', namespace: 'default', body: read });
    assert.equal(replaced.data?.['k'], 'v2');
    assert.notEqual(replaced.metadata?.resourceVersion, read.metadata?.resourceVersion);
    await core.deleteNamespacedConfigMap({ name: 'cn', namespace: 'default' });
    await assert.rejects(core.readNamespacedConfigMap({ name: 'cn', namespace: 'default' }), (err: unknown) => {
      assert.equal((err as { code?: number }).code, 404);
      return true;
    });
  });

  it('creates a Deployment with defaults and reads its scale', async () => {
    await apps.createNamespacedDeployment({
      namespace: 'default',
      body: {
        metadata: { name: 'dep' },
        spec: {
          selector: { matchLabels: { app: 'dep' } },
          template: { metadata: { labels: { app: 'dep' } }, spec: { containers: [{ name: 'c', image: 'nginx:1.27' }] } },
        },
      },
    });
    const dep = await apps.readNamespacedDeployment({ name: 'dep', namespace: 'default' });
    assert.equal(dep.spec?.replicas, 1);
    assert.equal(dep.spec?.revisionHistoryLimit, 10);
    const scale = await apps.readNamespacedDeploymentScale({ name: 'dep', namespace: 'default' });
    assert.equal(scale.spec?.replicas, 1);
    assert.equal(scale.status?.selector, 'app=dep');
    scale.spec = { replicas: 3 };
    await apps.replaceNamespacedDeploymentScale({ name: 'dep', namespace: 'default', body: scale });
    const after = await apps.readNamespacedDeployment({ name: 'dep', namespace: 'default' });
    assert.equal(after.spec?.replicas, 3);
    assert.equal(after.metadata?.generation, 2, 'a spec change bumps the generation');
  });

  it('surfaces Status errors to the client', async () => {
    await assert.rejects(
      core.createNamespacedConfigMap({ namespace: 'no-such-ns', body: { metadata: { name: 'x' } } }),
      (err: unknown) => {
        assert.equal((err as { code?: number }).code, 404);
        assert.match(String((err as { body?: unknown }).body), /namespaces \\?"no-such-ns\\?" not found/);
        return true;
      },
    );
  });
});
