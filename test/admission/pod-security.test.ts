/**
 * PodSecurity's modes and rules, after the original's admission_test.go
 * (k8s.io/pod-security-admission/admission): enforce rejects pods with the
 * original's message, audit annotates, warn warns (not on a rejected
 * request), workloads get warn/audit only, insignificant pod updates are not
 * evaluated, namespace labels are validated and a stricter enforce level
 * lists the pods that would violate it, exemptions, and the configuration
 * file.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { PodSecurityAdmission } from '../../src/admission/plugins/pod-security/admission.ts';
import { AUDIT_KEYS, LABELS } from '../../src/admission/plugins/pod-security/api.ts';
import { defaultConfig, loadPodSecurityConfig, parsePodSecurityConfiguration, type PodSecurityConfig } from '../../src/admission/plugins/pod-security/config.ts';
import { defaultEvaluator, podSecurityHandles } from '../../src/admission/plugins/pod-security/index.ts';
import { StatusError } from '../../src/api/status.ts';
import { names } from '../../src/naming/index.ts';
import type { KObject } from '../../src/registry/object.ts';
import { attrs, FakeCluster, NAMESPACE, pod, POD, served } from './pod-security-helpers.ts';

const CONFIG_API = `${names.podSecurity.configGroups[0]}/v1`;
const DEPLOYMENT = served('apps', 'v1', 'deployments');
const CRONJOB = served('batch', 'v1', 'cronjobs');
const RC = served('', 'v1', 'replicationcontrollers');

/** A pod that only the restricted level rejects: nothing set. */
const plainSpec = () => ({ containers: [{ name: 'c', image: 'pause' }] });
/** A pod that baseline rejects too. */
const privilegedSpec = () => ({ containers: [{ name: 'c', image: 'pause', securityContext: { privileged: true } }] });
const restrictedSpec = () => ({
  securityContext: { runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' } },
  containers: [{ name: 'c', image: 'pause', securityContext: { allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] } } }],
});

function setup(labels: Record<string, string>, config: PodSecurityConfig = defaultConfig(), limits?: { maxPodsToCheck: number; podCheckTimeoutMs: number }) {
  const cluster = new FakeCluster();
  cluster.namespaces.set('ns', labels);
  return { cluster, admission: new PodSecurityAdmission(config, defaultEvaluator(), cluster, limits) };
}

async function rejection(p: Promise<void>): Promise<StatusError> {
  try {
    await p;
  } catch (e) {
    if (e instanceof StatusError) return e;
    throw e;
  }
  assert.fail('expected a rejection');
}

test('enforce: 403 with the original message; audit annotated; no warning on a rejected request', async () => {
  const { admission } = setup({ [LABELS.enforce]: 'restricted', [LABELS.audit]: 'restricted', [LABELS.warn]: 'restricted' });
  const a = attrs({ rt: POD, operation: 'CREATE', object: pod('x', 'ns', plainSpec()) });
  const err = await rejection(admission.validate(a));
  assert.equal(err.code, 403);
  assert.equal(err.reason, 'Forbidden');
  const detail =
    'allowPrivilegeEscalation != false (container "c" must set securityContext.allowPrivilegeEscalation=false), ' +
    'unrestricted capabilities (container "c" must set securityContext.capabilities.drop=["ALL"]), ' +
    'runAsNonRoot != true (pod or container "c" must set securityContext.runAsNonRoot=true), ' +
    'seccompProfile (pod or container "c" must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost")';
  assert.equal(err.message, `pods "x" is forbidden: violates PodSecurity "restricted:latest": ${detail}`);
  assert.deepEqual(err.details, { name: 'x', group: '', kind: 'pods' });
  assert.equal(a.annotations[AUDIT_KEYS.enforcePolicy], 'restricted:latest');
  assert.equal(a.annotations[AUDIT_KEYS.auditViolations], `would violate PodSecurity "restricted:latest": ${detail}`);
  assert.deepEqual(a.warnings, []);
  assert.ok(AUDIT_KEYS.auditViolations.startsWith(names.podSecurity.prefix) && AUDIT_KEYS.auditViolations.endsWith('/audit-violations'));
});

test('warn and audit: allowed, with a warning and an audit annotation at their own levels and versions', async () => {
  const { admission } = setup({ [LABELS.enforce]: 'baseline', [LABELS.warn]: 'restricted', [LABELS.warnVersion]: 'v1.24', [LABELS.audit]: 'baseline', [LABELS.auditVersion]: 'v1.0' });
  const ok = attrs({ rt: POD, operation: 'CREATE', object: pod('x', 'ns', plainSpec()) });
  await admission.validate(ok);
  assert.equal(ok.warnings.length, 1);
  assert.match(ok.warnings[0]!, /^would violate PodSecurity "restricted:v1\.24": allowPrivilegeEscalation != false \(container "c" must set/);
  assert.equal(ok.annotations[AUDIT_KEYS.auditViolations], undefined, 'baseline:v1.0 allows a plain pod');
  assert.equal(ok.annotations[AUDIT_KEYS.enforcePolicy], 'baseline:latest');

  const good = attrs({ rt: POD, operation: 'CREATE', object: pod('y', 'ns', restrictedSpec()) });
  await admission.validate(good);
  assert.deepEqual(good.warnings, []);

  const bad = attrs({ rt: POD, operation: 'CREATE', object: pod('z', 'ns', privilegedSpec()) });
  const err = await rejection(admission.validate(bad));
  assert.equal(err.message, 'pods "z" is forbidden: violates PodSecurity "baseline:latest": privileged (container "c" must not set securityContext.privileged=true)');
  assert.equal(bad.annotations[AUDIT_KEYS.auditViolations], 'would violate PodSecurity "baseline:v1.0": privileged (container "c" must not set securityContext.privileged=true)');
});

test('a fully privileged namespace (the default) records the enforce policy and evaluates nothing', async () => {
  const { admission } = setup({});
  const a = attrs({ rt: POD, operation: 'CREATE', object: pod('x', 'ns', privilegedSpec()) });
  await admission.validate(a);
  assert.deepEqual(a.annotations, { [AUDIT_KEYS.enforcePolicy]: 'privileged:latest' });
  assert.deepEqual(a.warnings, []);
});

test('configured defaults apply to namespaces without labels; labels override them', async () => {
  const config = parsePodSecurityConfiguration({ apiVersion: CONFIG_API, kind: 'PodSecurityConfiguration', defaults: { enforce: 'baseline', warn: 'restricted' } });
  const { admission, cluster } = setup({}, config);
  const err = await rejection(admission.validate(attrs({ rt: POD, operation: 'CREATE', object: pod('x', 'ns', privilegedSpec()) })));
  assert.match(err.message, /violates PodSecurity "baseline:latest": privileged/);
  const w = attrs({ rt: POD, operation: 'CREATE', object: pod('x', 'ns', plainSpec()) });
  await admission.validate(w);
  assert.match(w.warnings[0]!, /^would violate PodSecurity "restricted:latest"/);
  cluster.namespaces.set('open', { [LABELS.enforce]: 'privileged', [LABELS.warn]: 'privileged' });
  const open = attrs({ rt: POD, operation: 'CREATE', namespace: 'open', object: pod('x', 'open', privilegedSpec()) });
  await admission.validate(open);
  assert.deepEqual(open.warnings, []);
});

test('bad namespace labels: enforce fails closed (restricted:latest), warn fails open, the error is annotated', async () => {
  const { admission } = setup({ [LABELS.enforce]: 'bogus', [LABELS.warn]: 'bogus' });
  const a = attrs({ rt: POD, operation: 'CREATE', object: pod('x', 'ns', plainSpec()) });
  const err = await rejection(admission.validate(a));
  assert.match(err.message, /violates PodSecurity "restricted:latest"/);
  assert.equal(
    a.annotations[AUDIT_KEYS.error],
    `Failed to parse policy: [metadata.labels[${LABELS.enforce}]: Invalid value: "bogus": must be one of privileged, baseline, restricted, metadata.labels[${LABELS.warn}]: Invalid value: "bogus": must be one of privileged, baseline, restricted]`,
  );
  const ok = attrs({ rt: POD, operation: 'CREATE', object: pod('y', 'ns', restrictedSpec()) });
  await admission.validate(ok);
  assert.deepEqual(ok.warnings, []);
});

test('exemptions: namespaces, usernames and runtime classes skip evaluation, with the exemption annotated', async () => {
  const config = parsePodSecurityConfiguration({
    apiVersion: CONFIG_API,
    kind: 'PodSecurityConfiguration',
    exemptions: { namespaces: ['free'], usernames: ['admin'], runtimeClasses: ['kata'] },
  });
  const { admission, cluster } = setup({ [LABELS.enforce]: 'restricted' }, config);
  cluster.namespaces.set('free', { [LABELS.enforce]: 'restricted' });
  const byNs = attrs({ rt: POD, operation: 'CREATE', namespace: 'free', object: pod('x', 'free', privilegedSpec()) });
  await admission.validate(byNs);
  assert.deepEqual(byNs.annotations, { [AUDIT_KEYS.exempt]: 'namespace' });
  const byUser = attrs({ rt: POD, operation: 'CREATE', object: pod('x', 'ns', privilegedSpec()), user: { name: 'admin', groups: [] } });
  await admission.validate(byUser);
  assert.deepEqual(byUser.annotations, { [AUDIT_KEYS.exempt]: 'user' });
  const byClass = attrs({ rt: POD, operation: 'CREATE', object: pod('x', 'ns', { ...privilegedSpec(), runtimeClassName: 'kata' }) });
  await admission.validate(byClass);
  assert.deepEqual(byClass.annotations, { [AUDIT_KEYS.exempt]: 'runtimeClass' });
  await rejection(admission.validate(attrs({ rt: POD, operation: 'CREATE', object: pod('x', 'ns', { ...privilegedSpec(), runtimeClassName: 'runc' }) })));
  await rejection(admission.validate(attrs({ rt: POD, operation: 'CREATE', object: pod('x', 'ns', privilegedSpec()), user: { name: 'bob', groups: ['admin'] } })));
});

const deployment = (spec: Record<string, unknown>): KObject =>
  ({ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'd', namespace: 'ns' }, spec: { selector: {}, template: { metadata: { labels: { a: 'b' } }, spec } } }) as KObject;

test('workloads: the pod template is warned about and audited, never rejected', async () => {
  const { admission } = setup({ [LABELS.enforce]: 'restricted', [LABELS.warn]: 'baseline', [LABELS.audit]: 'restricted' });
  const a = attrs({ rt: DEPLOYMENT, operation: 'CREATE', object: deployment(privilegedSpec()) });
  await admission.validate(a);
  assert.deepEqual(a.warnings, ['would violate PodSecurity "baseline:latest": privileged (container "c" must not set securityContext.privileged=true)']);
  assert.match(a.annotations[AUDIT_KEYS.auditViolations]!, /^would violate PodSecurity "restricted:latest": privileged \(container "c" must not/);
  assert.equal(a.annotations[AUDIT_KEYS.enforcePolicy], undefined, 'enforce is not evaluated for workloads');

  const cron = { apiVersion: 'batch/v1', kind: 'CronJob', metadata: { name: 'c', namespace: 'ns' }, spec: { schedule: '* * * * *', jobTemplate: { spec: { template: { spec: { ...privilegedSpec(), hostNetwork: true } } } } } } as KObject;
  const c = attrs({ rt: CRONJOB, operation: 'UPDATE', object: cron, oldObject: cron });
  await admission.validate(c);
  assert.match(c.warnings[0]!, /host namespaces \(hostNetwork=true\), privileged/);

  const rcWithoutTemplate = attrs({ rt: RC, operation: 'CREATE', object: { apiVersion: 'v1', kind: 'ReplicationController', metadata: { name: 'r', namespace: 'ns' }, spec: {} } as KObject });
  await admission.validate(rcWithoutTemplate);
  assert.deepEqual(rcWithoutTemplate.warnings, []);

  const quiet = setup({ [LABELS.enforce]: 'restricted' }).admission;
  const q = attrs({ rt: DEPLOYMENT, operation: 'CREATE', object: deployment(privilegedSpec()) });
  await quiet.validate(q);
  assert.deepEqual([q.warnings, q.annotations], [[], {}], 'warn and audit privileged: nothing to do');
});

test('pod updates: only images, ephemeral containers and seccomp annotations are evaluated', async () => {
  const { admission } = setup({ [LABELS.enforce]: 'baseline' });
  const old = pod('x', 'ns', privilegedSpec());
  const relabelled = pod('x', 'ns', privilegedSpec(), { labels: { new: 'label' } });
  await admission.validate(attrs({ rt: POD, operation: 'UPDATE', object: relabelled, oldObject: old }));
  const newImage = pod('x', 'ns', { containers: [{ name: 'c', image: 'other', securityContext: { privileged: true } }] });
  await rejection(admission.validate(attrs({ rt: POD, operation: 'UPDATE', object: newImage, oldObject: old })));
  const withEphemeral = pod('x', 'ns', { ...privilegedSpec(), ephemeralContainers: [{ name: 'debug', image: 'busybox' }] });
  const err = await rejection(admission.validate(attrs({ rt: POD, operation: 'UPDATE', subresource: 'ephemeralcontainers', object: withEphemeral, oldObject: old })));
  assert.match(err.message, /privileged \(container "c" must not set/);
  const seccompKey = `${names.podSecurity.seccompContainerPrefixes[0]!}c`;
  await rejection(admission.validate(attrs({ rt: POD, operation: 'UPDATE', object: pod('x', 'ns', privilegedSpec(), { annotations: { [seccompKey]: 'unconfined' } }), oldObject: old })));
});

test('handles: pods, namespaces and workloads on CREATE and UPDATE only; spec-less pod subresources are skipped', () => {
  assert.equal(podSecurityHandles(POD, '', 'CREATE'), true);
  assert.equal(podSecurityHandles(POD, '', 'UPDATE'), true);
  assert.equal(podSecurityHandles(POD, '', 'DELETE'), false);
  assert.equal(podSecurityHandles(POD, 'ephemeralcontainers', 'UPDATE'), true);
  for (const sub of ['status', 'binding', 'eviction', 'exec', 'attach', 'log', 'portforward', 'proxy']) assert.equal(podSecurityHandles(POD, sub, 'CREATE'), false, sub);
  assert.equal(podSecurityHandles(NAMESPACE, '', 'UPDATE'), true);
  assert.equal(podSecurityHandles(NAMESPACE, 'status', 'UPDATE'), false);
  assert.equal(podSecurityHandles(NAMESPACE, '', 'DELETE'), false);
  assert.equal(podSecurityHandles(DEPLOYMENT, '', 'CREATE'), true);
  assert.equal(podSecurityHandles(DEPLOYMENT, 'scale', 'UPDATE'), false);
  for (const [g, r] of [['apps', 'replicasets'], ['apps', 'statefulsets'], ['apps', 'daemonsets'], ['batch', 'jobs'], ['', 'podtemplates'], ['', 'replicationcontrollers']]) {
    assert.equal(podSecurityHandles(served(g!, 'v1', r!), '', 'CREATE'), true, r);
  }
  assert.equal(podSecurityHandles(served('', 'v1', 'configmaps'), '', 'CREATE'), false);
});

const ns = (name: string, labels: Record<string, string>): KObject => ({ apiVersion: 'v1', kind: 'Namespace', metadata: { name, labels } }) as KObject;

test('namespaces: bad labels are invalid on create, and on update only when they change', async () => {
  const { admission } = setup({});
  const bad = { [LABELS.enforce]: 'strict', [LABELS.auditVersion]: 'v2.0' };
  const err = await rejection(admission.validate(attrs({ rt: NAMESPACE, operation: 'CREATE', object: ns('n', bad) })));
  assert.equal(err.code, 422);
  assert.equal(
    err.message,
    `Namespace "n" is invalid: metadata.labels[${LABELS.enforce}]: Invalid value: "strict": must be one of privileged, baseline, restricted, metadata.labels[${LABELS.auditVersion}]: Invalid value: "v2.0": must be "latest" or "v1.x"`,
  );
  await admission.validate(attrs({ rt: NAMESPACE, operation: 'UPDATE', object: ns('n', { ...bad, other: 'x' }), oldObject: ns('n', bad) }));
  await rejection(admission.validate(attrs({ rt: NAMESPACE, operation: 'UPDATE', object: ns('n', { [LABELS.warn]: 'x' }), oldObject: ns('n', {}) })));
  await admission.validate(attrs({ rt: NAMESPACE, operation: 'CREATE', object: ns('n', { [LABELS.enforce]: 'baseline', [LABELS.enforceVersion]: 'v1.22' }) }));
});

test('namespaces: a stricter enforce level warns about existing pods, grouped, one controller pod first', async () => {
  const { admission, cluster } = setup({});
  const owner = (uid: string) => ({ ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'rs', uid, controller: true }] });
  cluster.pods.push(
    pod('b-priv', 'n', privilegedSpec()),
    pod('a-priv', 'n', privilegedSpec()),
    pod('hostnet', 'n', { ...plainSpec(), hostNetwork: true }),
    pod('rs-1', 'n', { containers: [{ name: 'c', ports: [{ containerPort: 80, hostPort: 80 }] }] }, owner('u1')),
    pod('rs-2', 'n', { containers: [{ name: 'c', ports: [{ containerPort: 80, hostPort: 80 }] }] }, owner('u1')),
    pod('rs-3', 'n', { containers: [{ name: 'c', ports: [{ containerPort: 80, hostPort: 80 }] }] }, owner('u1')),
    pod('fine', 'n', restrictedSpec()),
    pod('elsewhere', 'other', privilegedSpec()),
  );
  const a = attrs({ rt: NAMESPACE, operation: 'UPDATE', object: ns('n', { [LABELS.enforce]: 'baseline' }), oldObject: ns('n', {}) });
  await admission.validate(a);
  assert.deepEqual(a.warnings, [
    `existing pods in namespace "n" violate the new PodSecurity enforce level "baseline:latest"`,
    'a-priv (and 1 other pod): privileged',
    'hostnet: host namespaces',
    'rs-1 (and 2 other pods): hostPort',
  ]);

  // Relaxing at the same version, unchanged enforce, or privileged: nothing listed.
  const lists = cluster.podLists;
  for (const [next, prev] of [
    [{ [LABELS.enforce]: 'baseline' }, { [LABELS.enforce]: 'restricted' }],
    [{ [LABELS.enforce]: 'baseline', other: 'x' }, { [LABELS.enforce]: 'baseline' }],
    [{ [LABELS.enforce]: 'privileged' }, { [LABELS.enforce]: 'restricted' }],
  ] as const) {
    const r = attrs({ rt: NAMESPACE, operation: 'UPDATE', object: ns('n', next), oldObject: ns('n', prev) });
    await admission.validate(r);
    assert.deepEqual(r.warnings, []);
  }
  assert.equal(cluster.podLists, lists, 'no pods listed for those');
  // Same level at another version is checked again.
  const v = attrs({ rt: NAMESPACE, operation: 'UPDATE', object: ns('n', { [LABELS.enforce]: 'baseline', [LABELS.enforceVersion]: 'v1.0' }), oldObject: ns('n', { [LABELS.enforce]: 'baseline' }) });
  await admission.validate(v);
  assert.equal(v.warnings.length, 4);
});

test('namespaces: at most maxPodsToCheck pods are checked, and the warning says so', async () => {
  const { admission, cluster } = setup({}, defaultConfig(), { maxPodsToCheck: 3, podCheckTimeoutMs: 60_000 });
  for (let i = 0; i < 10; i++) cluster.pods.push(pod(`p${i}`, 'n', privilegedSpec()));
  const a = attrs({ rt: NAMESPACE, operation: 'UPDATE', object: ns('n', { [LABELS.enforce]: 'baseline' }), oldObject: ns('n', {}) });
  await admission.validate(a);
  assert.deepEqual(a.warnings, [
    'new PodSecurity enforce level only checked against the first 3 of 10 existing pods',
    'existing pods in namespace "n" violate the new PodSecurity enforce level "baseline:latest"',
    'p0 (and 2 other pods): privileged',
  ]);
});

test('namespaces: an exempt namespace with a policy warns that the policy is ignored', async () => {
  const config = parsePodSecurityConfiguration({ apiVersion: CONFIG_API, kind: 'PodSecurityConfiguration', exemptions: { namespaces: ['kube-ish'] } });
  const { admission } = setup({}, config);
  const a = attrs({ rt: NAMESPACE, operation: 'CREATE', object: ns('kube-ish', { [LABELS.enforce]: 'restricted', [LABELS.warn]: 'baseline', [LABELS.warnVersion]: 'v1.23' }) });
  await admission.validate(a);
  assert.deepEqual(a.warnings, ['namespace "kube-ish" is exempt from Pod Security, and the policy (enforce=restricted:latest, warn=baseline:v1.23) will be ignored']);
  const plain = attrs({ rt: NAMESPACE, operation: 'CREATE', object: ns('kube-ish', { [LABELS.enforce]: 'privileged' }) });
  await admission.validate(plain);
  assert.deepEqual(plain.warnings, []);
});

test('a pod in a namespace that cannot be read is an internal error; a workload is let through with an audit note', async () => {
  const { admission } = setup({});
  const err = await rejection(admission.validate(attrs({ rt: POD, operation: 'CREATE', namespace: 'missing', object: pod('x', 'missing', plainSpec()) })));
  assert.equal(err.code, 500);
  assert.equal(err.message, 'Internal error occurred: failed to lookup namespace "missing"');
  const d = deployment(privilegedSpec());
  d.metadata.namespace = 'missing';
  const a = attrs({ rt: DEPLOYMENT, operation: 'CREATE', object: d });
  await admission.validate(a);
  assert.match(a.annotations[AUDIT_KEYS.error]!, /failed to lookup namespace "missing"/);
});

test('configuration: defaults, validation errors as the original words them', () => {
  const c = parsePodSecurityConfiguration({ apiVersion: CONFIG_API, kind: 'PodSecurityConfiguration', defaults: { enforce: 'baseline', 'enforce-version': 'v1.23' } });
  assert.deepEqual(c.defaults.enforce, { level: 'baseline', version: { major: 1, minor: 23, latest: false } });
  assert.equal(c.defaults.audit.level, 'privileged');
  assert.equal(c.defaults.warn.version.latest, true);
  for (const v of ['v1', 'v1beta1', 'v1alpha1']) parsePodSecurityConfiguration({ apiVersion: `${names.podSecurity.configGroups[0]}/${v}`, kind: 'PodSecurityConfiguration' });
  assert.throws(
    () =>
      parsePodSecurityConfiguration({
        apiVersion: CONFIG_API,
        kind: 'PodSecurityConfiguration',
        defaults: { enforce: 'max', 'warn-version': '1.2' },
        exemptions: { namespaces: ['Bad_NS', 'ok', 'ok'], usernames: [''], runtimeClasses: ['a..b'] },
      }),
    (e: Error) =>
      e.message.startsWith('[defaults.enforce: Invalid value: "max": must be one of privileged, baseline, restricted, defaults.warn-version: Invalid value: "1.2": must be "latest" or "v1.x", exemptions.namespaces[0]: Invalid value: "Bad_NS": ') &&
      e.message.includes('exemptions.namespaces[2]: Duplicate value: "ok"') &&
      e.message.includes('exemptions.runtimeClasses[0]: Invalid value: "a..b"') &&
      e.message.includes('exemptions.usernames[0]: Invalid value: "": username must not be empty'),
  );
  assert.throws(() => parsePodSecurityConfiguration({ apiVersion: 'v1', kind: 'ConfigMap' }), /expected PodSecurityConfiguration/);
  assert.throws(() => parsePodSecurityConfiguration('x'), /expected an object/);
});

test('configuration file: the PodSecurity entry of an AdmissionConfiguration, inline or by path', async () => {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'psa-config-'));
  try {
    const inline = path.join(dir, 'inline.yaml');
    await fs.writeFile(
      inline,
      [
        'apiVersion: apiserver.config.k8s.io/v1',
        'kind: AdmissionConfiguration',
        'plugins:',
        '- name: EventRateLimit',
        '  path: elsewhere.yaml',
        '- name: PodSecurity',
        '  configuration:',
        `    apiVersion: ${CONFIG_API}`,
        '    kind: PodSecurityConfiguration',
        '    defaults:',
        '      enforce: baseline',
        '    exemptions:',
        '      usernames: [ci-bot]',
      ].join('\n'),
    );
    const c = loadPodSecurityConfig(inline);
    assert.equal(c.defaults.enforce.level, 'baseline');
    assert.deepEqual([...c.exemptions.usernames], ['ci-bot']);

    await fs.mkdir(path.join(dir, 'sub'));
    await fs.writeFile(path.join(dir, 'sub', 'psa.yaml'), JSON.stringify({ apiVersion: CONFIG_API, kind: 'PodSecurityConfiguration', defaults: { warn: 'restricted' } }));
    const byPath = path.join(dir, 'bypath.yaml');
    await fs.writeFile(byPath, 'apiVersion: apiserver.config.k8s.io/v1\nkind: AdmissionConfiguration\nplugins:\n- name: PodSecurity\n  path: sub/psa.yaml\n');
    assert.equal(loadPodSecurityConfig(byPath).defaults.warn.level, 'restricted');

    const none = path.join(dir, 'none.yaml');
    await fs.writeFile(none, 'apiVersion: apiserver.config.k8s.io/v1\nkind: AdmissionConfiguration\nplugins: []\n');
    assert.equal(loadPodSecurityConfig(none).defaults.enforce.level, 'privileged');
    assert.equal(loadPodSecurityConfig(undefined).defaults.enforce.level, 'privileged');

    const bad = path.join(dir, 'bad.yaml');
    await fs.writeFile(bad, `apiVersion: apiserver.config.k8s.io/v1\nkind: AdmissionConfiguration\nplugins:\n- name: PodSecurity\n  configuration:\n    apiVersion: ${CONFIG_API}\n    kind: PodSecurityConfiguration\n    defaults: {enforce: nope}\n`);
    assert.throws(() => loadPodSecurityConfig(bad), /^Error: PodSecurity invalid: defaults\.enforce: Invalid value: "nope"/);
    assert.throws(() => loadPodSecurityConfig(path.join(dir, 'absent.yaml')), /ENOENT/);
    await fs.writeFile(bad, 'kind: [unclosed');
    assert.throws(() => loadPodSecurityConfig(bad));
  } finally {
    await fs.rm(dir, { recursive: true, force: true });
  }
});

test('a bad PodSecurity configuration stops the start with the other flag problems (and not when the plugin is off)', async () => {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'psa-flags-'));
  try {
    const file = path.join(dir, 'admission.yaml');
    await fs.writeFile(file, `kind: AdmissionConfiguration\nplugins:\n- name: PodSecurity\n  configuration:\n    apiVersion: ${CONFIG_API}\n    kind: PodSecurityConfiguration\n    exemptions: {usernames: [""]}\n`);
    const { parseArgs, OptionsError } = await import('../../src/server/options.ts');
    assert.throws(
      () => parseArgs([`--admission-control-config-file=${file}`]),
      (e: Error) => e instanceof OptionsError && e.message.includes('PodSecurity invalid: exemptions.usernames[0]: Invalid value: "": username must not be empty'),
    );
    assert.equal(parseArgs([`--admission-control-config-file=${file}`, '--disable-admission-plugins=PodSecurity']).admissionControlConfigFile, file);
    assert.throws(() => parseArgs([`--admission-control-config-file=${path.join(dir, 'missing.yaml')}`]), /PodSecurity: reading .*missing\.yaml: ENOENT/);
  } finally {
    await fs.rm(dir, { recursive: true, force: true });
  }
});
