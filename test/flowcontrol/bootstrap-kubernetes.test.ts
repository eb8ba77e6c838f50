/**
 * The APF bootstrap configuration in the kubernetes flavor: the original's
 * objects under the original's names (flowcontrol.apiserver.k8s.io,
 * kube-system, coordination.k8s.io, apf.kubernetes.io/autoupdate-spec), byte
 * for byte what a v1.25 kube-apiserver serves in their specs, and kubectl
 * reads them by their full resource names.
 */
import '../support/kubernetes-flavor.ts';
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { API_FLAVOR, names } from '../../src/naming/index.ts';
import { startTestServer, type TestServer } from '../support/test-server.ts';

const FC = '/apis/flowcontrol.apiserver.k8s.io/v1beta2';

describe('APF bootstrap objects in the kubernetes flavor', () => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer();
  });
  after(async () => {
    await t?.stop();
  });

  it('runs the kubernetes flavor', () => {
    assert.equal(API_FLAVOR, 'kubernetes');
    assert.equal(names.annotations.apfAutoUpdateSpec, 'apf.kubernetes.io/autoupdate-spec');
  });

  it('serves the original\'s objects with the original\'s names', async () => {
    const fs = (await t.request('GET', `${FC}/flowschemas/workload-leader-election`)).json<{ apiVersion: string; metadata: { annotations: Record<string, string> }; spec: unknown }>();
    assert.equal(fs.apiVersion, 'flowcontrol.apiserver.k8s.io/v1beta2');
    assert.deepEqual(fs.metadata.annotations, { 'apf.kubernetes.io/autoupdate-spec': 'true' });
    // As `kubectl get flowschema workload-leader-election -o json` prints it from a v1.25 cluster.
    assert.deepEqual(fs.spec, {
      priorityLevelConfiguration: { name: 'leader-election' },
      matchingPrecedence: 200,
      distinguisherMethod: { type: 'ByUser' },
      rules: [{
        subjects: [{ kind: 'ServiceAccount', serviceAccount: { namespace: 'kube-system', name: '*' } }],
        resourceRules: [
          { verbs: ['get', 'create', 'update'], apiGroups: [''], resources: ['endpoints', 'configmaps'], namespaces: ['*'] },
          { verbs: ['get', 'create', 'update'], apiGroups: ['coordination.k8s.io'], resources: ['leases'], namespaces: ['*'] },
        ],
      }],
    });
    const pl = (await t.request('GET', `${FC}/prioritylevelconfigurations/workload-low`)).json<{ spec: { limited: Record<string, unknown> } }>();
    assert.equal(pl.spec.limited['assuredConcurrencyShares'], 100);
  });

  it('kubectl gets them by full resource name', async () => {
    const fs = await t.kubectl(['get', 'flowschemas.flowcontrol.apiserver.k8s.io', 'kube-system-service-accounts', '--no-headers']);
    assert.equal(fs.code, 0, fs.stderr);
    assert.match(fs.stdout, /^kube-system-service-accounts\s+workload-high\s+900\s+ByNamespace\s+\S+\s+(False|\?)\s*$/);
    const pl = await t.kubectl(['get', 'prioritylevelconfigurations.flowcontrol.apiserver.k8s.io', '-o', 'name']);
    assert.equal(pl.code, 0, pl.stderr);
    assert.deepEqual(pl.stdout.trim().split('\n').sort(), [
      'catch-all', 'exempt', 'global-default', 'leader-election', 'node-high', 'system', 'workload-high', 'workload-low',
    ].map((n) => `prioritylevelconfiguration.flowcontrol.apiserver.k8s.io/${n}`));
  });
});
