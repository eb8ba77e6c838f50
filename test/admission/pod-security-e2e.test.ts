/**
 * PodSecurity end to end: a real server (the plugin is on by default, and
 * named in --enable-admission-plugins here too) with an AdmissionConfiguration
 * file, driven by kubectl and HTTPS: namespace labels, the enforce
 * rejection as kubectl prints it, warnings in kubectl's output and in the
 * response's Warning headers, workloads warned about but created, the
 * existing-pod warnings of a stricter namespace label, invalid labels, and
 * exemptions from the file.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { LABELS } from '../../src/admission/plugins/pod-security/api.ts';
import { names } from '../../src/naming/index.ts';
import { startTestServer, type TestServer } from '../support/test-server.ts';

const BOT = { token: 'psa-bot-token-0123456789', user: 'ci-bot' };

const yaml = (doc: Record<string, unknown>): string => JSON.stringify(doc);

const privilegedPod = (name: string, namespace: string) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, namespace },
  spec: { containers: [{ name: 'c', image: 'pause', securityContext: { privileged: true } }] },
});

const plainPod = (name: string, namespace: string) => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace }, spec: { containers: [{ name: 'c', image: 'pause' }] } });

describe('PodSecurity over HTTP', () => {
  let ts: TestServer;
  let dir: string;

  before(async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'psa-e2e-'));
    const config = path.join(dir, 'admission.yaml');
    await fs.writeFile(
      config,
      [
        'apiVersion: apiserver.config.k8s.io/v1',
        'kind: AdmissionConfiguration',
        'plugins:',
        '- name: PodSecurity',
        '  configuration:',
        `    apiVersion: ${names.podSecurity.configGroups[0]}/v1`,
        '    kind: PodSecurityConfiguration',
        '    defaults:',
        '      warn: baseline',
        '    exemptions:',
        '      namespaces: [psa-exempt]',
        `      usernames: [${BOT.user}]`,
      ].join('\n'),
      { mode: 0o600 },
    );
    await fs.writeFile(path.join(dir, 'tokens.csv'), `${BOT.token},${BOT.user},uid-bot,"bots"\n`, { mode: 0o600 });
    ts = await startTestServer(['--enable-admission-plugins=PodSecurity', `--admission-control-config-file=${config}`, `--token-auth-file=${path.join(dir, 'tokens.csv')}`]);
    for (const ns of ['psa', 'psa-exempt', 'psa-defaults']) assert.equal((await ts.kubectl(['create', 'namespace', ns])).code, 0);
    const labelled = await ts.kubectl(['label', 'namespace', 'psa', `${LABELS.enforce}=baseline`, `${LABELS.warn}=restricted`, `${LABELS.warnVersion}=v1.25`]);
    assert.equal(labelled.code, 0, labelled.stderr);
    await ts.kubectl(['label', 'namespace', 'psa-exempt', `${LABELS.enforce}=restricted`]);
  });

  after(async () => {
    await ts?.stop();
    await fs.rm(dir, { recursive: true, force: true });
  });

  test('kubectl: the enforce level rejects a privileged pod with the original message', async () => {
    const r = await ts.kubectl(['apply', '-f', '-'], { input: yaml(privilegedPod('priv', 'psa')) });
    assert.notEqual(r.code, 0);
    assert.match(r.stderr, /Error from server \(Forbidden\): error when creating "STDIN": pods "priv" is forbidden: violates PodSecurity "baseline:latest": privileged \(container "c" must not set securityContext\.privileged=true\)/);
    assert.equal((await ts.kubectl(['get', 'pod', 'priv', '-n', 'psa'])).code, 1, 'not stored');
  });

  test('a pod asking for a generated name is refused without a name, as the original words it', async () => {
    const pod = privilegedPod('', 'psa') as { metadata: Record<string, unknown> };
    delete pod.metadata['name'];
    pod.metadata['generateName'] = 'priv-';
    const r = await ts.request('POST', '/api/v1/namespaces/psa/pods', pod);
    assert.equal(r.status, 403);
    assert.match(r.json<{ message: string }>().message, /^pods is forbidden: violates PodSecurity "baseline:latest": privileged/);
  });

  test('kubectl: a pod the warn level would reject is created with the warning printed', async () => {
    const r = await ts.kubectl(['apply', '-f', '-'], { input: yaml(plainPod('plain', 'psa')) });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /pod\/plain created/);
    assert.match(
      r.stderr,
      /Warning: would violate PodSecurity "restricted:v1\.25": allowPrivilegeEscalation != false \(container "c" must set securityContext\.allowPrivilegeEscalation=false\), unrestricted capabilities \(container "c" must set securityContext\.capabilities\.drop=\["ALL"\]\), runAsNonRoot != true/,
    );
  });

  test('kubectl: a deployment with a privileged template is created, with a warning, never rejected', async () => {
    const deployment = {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'web', namespace: 'psa' },
      spec: { selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web' } }, spec: privilegedPod('x', 'psa').spec } },
    };
    const r = await ts.kubectl(['apply', '-f', '-'], { input: yaml(deployment) });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /deployment\.apps\/web created/);
    assert.match(r.stderr, /Warning: would violate PodSecurity "restricted:v1\.25": privileged \(container "c" must not set securityContext\.privileged=true\)/);
  });

  test('HTTPS: Warning headers carry the warn level; the configured default warn applies to unlabelled namespaces', async () => {
    const res = await ts.request('POST', '/api/v1/namespaces/psa-defaults/pods', { ...plainPod('p', 'psa-defaults'), spec: { ...plainPod('p', '').spec, hostNetwork: true } });
    assert.equal(res.status, 201, res.body);
    const warning = [res.headers['warning']].flat().join('\n');
    assert.match(warning, /^299 - "would violate PodSecurity \\"baseline:latest\\": host namespaces \(hostNetwork=true\)"$/);
    const dry = await ts.request('POST', '/api/v1/namespaces/psa/pods?dryRun=All', privilegedPod('dry', 'psa'));
    assert.equal(dry.status, 403, 'dry-run requests are admitted too');
    assert.equal(dry.json<{ reason: string }>().reason, 'Forbidden');
  });

  test('kubectl: raising the enforce level lists the existing pods that would violate it', async () => {
    const r = await ts.kubectl(['label', 'namespace', 'psa', '--overwrite', `${LABELS.enforce}=restricted`]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, /Warning: existing pods in namespace "psa" violate the new PodSecurity enforce level "restricted:latest"/);
    assert.match(r.stderr, /Warning: plain: allowPrivilegeEscalation != false, unrestricted capabilities, runAsNonRoot != true, seccompProfile/);
    const bad = await ts.kubectl(['label', 'namespace', 'psa', '--overwrite', `${LABELS.enforce}=strict`]);
    assert.notEqual(bad.code, 0);
    assert.match(bad.stderr, new RegExp(`Namespace "psa" is invalid: metadata\\.labels\\[${LABELS.enforce.replace(/\./g, '\\.')}\\]: Invalid value: "strict": must be one of privileged, baseline, restricted`));
  });

  test('exemptions from the configuration file: a namespace and a user', async () => {
    const inExempt = await ts.kubectl(['apply', '-f', '-'], { input: yaml(privilegedPod('priv', 'psa-exempt')) });
    assert.equal(inExempt.code, 0, inExempt.stderr);
    assert.doesNotMatch(inExempt.stderr, /Warning/);
    const byBot = await ts.request('POST', '/api/v1/namespaces/psa/pods', privilegedPod('bot-pod', 'psa'), { as: { token: BOT.token } });
    assert.equal(byBot.status, 201, byBot.body);
    assert.equal(byBot.headers['warning'], undefined);
    const byAdmin = await ts.request('POST', '/api/v1/namespaces/psa/pods', privilegedPod('admin-pod', 'psa'));
    assert.equal(byAdmin.status, 403);
  });

  test('an update that only relabels a violating pod is allowed; changing its image is checked', async () => {
    const relabel = await ts.kubectl(['label', 'pod', 'bot-pod', '-n', 'psa', 'touched=yes']);
    assert.equal(relabel.code, 0, relabel.stderr);
    const image = await ts.kubectl(['set', 'image', 'pod/bot-pod', '-n', 'psa', 'c=pause:2']);
    assert.notEqual(image.code, 0);
    assert.match(image.stderr, /pods "bot-pod" is forbidden: violates PodSecurity "restricted:latest": privileged/);
  });

  test('label changes reach the plugin (the namespace mirror follows the watch)', async () => {
    const patch = (labels: Record<string, string | null>) =>
      ts.request('PATCH', '/api/v1/namespaces/psa-defaults', { metadata: { labels } }, { headers: { 'content-type': 'application/merge-patch+json' } });
    const dryRunStatus = async () => (await ts.request('POST', '/api/v1/namespaces/psa-defaults/pods?dryRun=All', privilegedPod('probe', 'psa-defaults'))).status;
    const eventually = async (want: number, what: string) => {
      let got = 0;
      for (let i = 0; i < 250 && got !== want; i++) {
        got = await dryRunStatus();
        if (got !== want) await new Promise((r) => setTimeout(r, 20));
      }
      assert.equal(got, want, what);
    };
    assert.equal(await dryRunStatus(), 201, 'the default warn level only warns');
    assert.equal((await patch({ [LABELS.enforce]: 'baseline' })).status, 200);
    await eventually(403, 'enforce=baseline applies');
    assert.equal((await patch({ [LABELS.enforce]: null })).status, 200);
    await eventually(201, 'removing the label lifts it');
    // A namespace created just now is found too (a miss falls back to a read).
    assert.equal((await ts.request('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'psa-new', labels: { [LABELS.enforce]: 'restricted' } } })).status, 201);
    const fresh = await ts.request('POST', '/api/v1/namespaces/psa-new/pods', plainPod('p', 'psa-new'));
    assert.equal(fresh.status, 403, fresh.body);
  });
});
