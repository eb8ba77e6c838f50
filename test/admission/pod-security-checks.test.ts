/**
 * PodSecurity's checks, one by one, on the original's check test cases
 * (k8s.io/pod-security-admission/policy/check_*_test.go): reason and detail
 * texts as the original prints them; then the registry (versions,
 * overrides, latest).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DEFAULT_CHECKS, type CheckFn } from '../../src/admission/plugins/pod-security/checks.ts';
import { Evaluator, forbiddenDetail, forbiddenReason } from '../../src/admission/plugins/pod-security/evaluator.ts';
import { LATEST, majorMinor, type Level } from '../../src/admission/plugins/pod-security/api.ts';
import { podView } from '../../src/admission/plugins/pod-security/pod-view.ts';
import { names } from '../../src/naming/index.ts';

/** The check revision `id` that applies from `minor`. */
function check(id: string, minor?: number): CheckFn {
  const c = DEFAULT_CHECKS.find((x) => x.id === id);
  assert.ok(c, `no check ${id}`);
  const r = minor === undefined ? c.versions[0] : c.versions.find((v) => v.minimumVersion.minor === minor);
  assert.ok(r, `no revision ${id}@1.${minor}`);
  return r.check;
}

function run(id: string, spec: Record<string, unknown>, annotations?: Record<string, string>, minor?: number) {
  return check(id, minor)(podView({ annotations }, spec));
}

function expectForbidden(id: string, spec: Record<string, unknown>, reason: string, detail: string, annotations?: Record<string, string>, minor?: number): void {
  const r = run(id, spec, annotations, minor);
  assert.equal(r.allowed, false, `${id} should forbid`);
  assert.equal(r.reason, reason);
  assert.equal(r.detail, detail);
}

const sc = (o: Record<string, unknown>) => ({ securityContext: o });

test('runAsNonRoot: the original cases', () => {
  expectForbidden('runAsNonRoot', { containers: [{ name: 'a' }] }, 'runAsNonRoot != true', 'pod or container "a" must set securityContext.runAsNonRoot=true');
  expectForbidden('runAsNonRoot', { securityContext: { runAsNonRoot: false }, containers: [{ name: 'a' }] }, 'runAsNonRoot != true', 'pod must not set securityContext.runAsNonRoot=false');
  expectForbidden(
    'runAsNonRoot',
    {
      securityContext: { runAsNonRoot: true },
      containers: [{ name: 'a' }, { name: 'b', ...sc({}) }, { name: 'c', ...sc({ runAsNonRoot: false }) }, { name: 'd', ...sc({ runAsNonRoot: false }) }, { name: 'e', ...sc({ runAsNonRoot: true }) }, { name: 'f', ...sc({ runAsNonRoot: true }) }],
    },
    'runAsNonRoot != true',
    'containers "c", "d" must not set securityContext.runAsNonRoot=false',
  );
  expectForbidden(
    'runAsNonRoot',
    { containers: [{ name: 'a' }, { name: 'b', ...sc({}) }, { name: 'd', ...sc({ runAsNonRoot: true }) }, { name: 'e', ...sc({ runAsNonRoot: true }) }] },
    'runAsNonRoot != true',
    'pod or containers "a", "b" must set securityContext.runAsNonRoot=true',
  );
  assert.equal(run('runAsNonRoot', { securityContext: { runAsNonRoot: true }, containers: [{ name: 'a' }] }).allowed, true);
});

test('seLinuxOptions: the original cases (user and role listed even without a bad type, as later releases)', () => {
  const containers = [
    { name: 'a', ...sc({ seLinuxOptions: { type: 'container_t' } }) },
    { name: 'b', ...sc({ seLinuxOptions: { type: 'container_init_t' } }) },
    { name: 'c', ...sc({ seLinuxOptions: { type: 'container_kvm_t' } }) },
  ];
  const bad = [
    { name: 'e', ...sc({ seLinuxOptions: { type: 'bar' } }) },
    { name: 'f', ...sc({ seLinuxOptions: { user: 'bar' } }) },
    { name: 'g', ...sc({ seLinuxOptions: { role: 'baz' } }) },
  ];
  const badPod = { seLinuxOptions: { type: 'foo', user: 'bar', role: 'baz' } };
  expectForbidden(
    'seLinuxOptions',
    { securityContext: badPod, containers: [...containers, ...bad] },
    'seLinuxOptions',
    'pod and containers "e", "f", "g" set forbidden securityContext.seLinuxOptions: types "bar", "foo"; user may not be set; role may not be set',
  );
  expectForbidden('seLinuxOptions', { securityContext: badPod, containers }, 'seLinuxOptions', 'pod set forbidden securityContext.seLinuxOptions: type "foo"; user may not be set; role may not be set');
  expectForbidden(
    'seLinuxOptions',
    { securityContext: { seLinuxOptions: {} }, containers: [...containers, ...bad] },
    'seLinuxOptions',
    'containers "e", "f", "g" set forbidden securityContext.seLinuxOptions: type "bar"; user may not be set; role may not be set',
  );
  expectForbidden('seLinuxOptions', { securityContext: { seLinuxOptions: { type: 'bad' } } }, 'seLinuxOptions', 'pod set forbidden securityContext.seLinuxOptions: type "bad"');
  expectForbidden('seLinuxOptions', { securityContext: { seLinuxOptions: { user: 'bad' } } }, 'seLinuxOptions', 'pod set forbidden securityContext.seLinuxOptions: user may not be set');
  expectForbidden('seLinuxOptions', { securityContext: { seLinuxOptions: { role: 'bad' } } }, 'seLinuxOptions', 'pod set forbidden securityContext.seLinuxOptions: role may not be set');
  assert.equal(run('seLinuxOptions', { securityContext: { seLinuxOptions: { level: 's0:c1' } }, containers }).allowed, true, 'level is free; the three container types are allowed');
  // container_engine_t joined the allowed types after v1.25.
  expectForbidden('seLinuxOptions', { containers: [{ name: 'd', ...sc({ seLinuxOptions: { type: 'container_engine_t' } }) }] }, 'seLinuxOptions', 'container "d" set forbidden securityContext.seLinuxOptions: type "container_engine_t"');
});

test('capabilities_restricted: drop ALL required, only NET_BIND_SERVICE added', () => {
  expectForbidden(
    'capabilities_restricted',
    {
      containers: [
        { name: 'a', ...sc({ capabilities: { add: ['FOO', 'BAR'] } }) },
        { name: 'b', ...sc({ capabilities: { add: ['BAR', 'BAZ'] } }) },
        { name: 'c', ...sc({ capabilities: { add: ['NET_BIND_SERVICE', 'CHOWN'], drop: ['ALL', 'FOO'] } }) },
      ],
    },
    'unrestricted capabilities',
    'containers "a", "b" must set securityContext.capabilities.drop=["ALL"]; containers "a", "b", "c" must not include "BAR", "BAZ", "CHOWN", "FOO" in securityContext.capabilities.add',
    undefined,
    22,
  );
  const windows = { os: { name: 'windows' }, containers: [{ name: 'a' }] };
  assert.equal(run('capabilities_restricted', windows, undefined, 22).allowed, false, 'v1.22 does not know spec.os');
  assert.equal(run('capabilities_restricted', windows, undefined, 25).allowed, true, 'v1.25 exempts Windows pods');
});

test('capabilities_baseline: only the default set may be added', () => {
  expectForbidden(
    'capabilities_baseline',
    { containers: [{ name: 'a', ...sc({ capabilities: { add: ['FOO', 'BAR'] } }) }, { name: 'b', ...sc({ capabilities: { add: ['BAR', 'BAZ'] } }) }, { name: 'c', ...sc({ capabilities: { add: ['CHOWN'] } }) }] },
    'non-default capabilities',
    'containers "a", "b" must not include "BAR", "BAZ", "FOO" in securityContext.capabilities.add',
  );
  assert.equal(run('capabilities_baseline', { containers: [{ name: 'a', ...sc({ capabilities: { add: ['NET_BIND_SERVICE', 'KILL', 'SYS_CHROOT'], drop: ['ALL'] } }) }] }).allowed, true);
});

test('hostPorts: containers, ports sorted and de-duplicated', () => {
  expectForbidden('hostPorts', { containers: [{ name: 'a', ports: [{ hostPort: 0 }] }, { name: 'b', ports: [{ hostPort: 0 }, { hostPort: 20 }] }] }, 'hostPort', 'container "b" uses hostPort 20');
  expectForbidden(
    'hostPorts',
    {
      containers: [
        { name: 'a', ports: [{ hostPort: 0 }] },
        { name: 'b', ports: [{ hostPort: 0 }, { hostPort: 10 }, { hostPort: 20 }] },
        { name: 'c', ports: [{ hostPort: 0 }, { hostPort: 10 }, { hostPort: 30 }] },
      ],
    },
    'hostPort',
    'containers "b", "c" use hostPorts 10, 20, 30',
  );
});

test('restrictedVolumes: allowed sources pass, every restricted source and an unknown one are named', () => {
  const allowed = ['emptyDir', 'secret', 'persistentVolumeClaim', 'downwardAPI', 'configMap', 'projected', 'csi', 'ephemeral'].map((s, i) => ({ name: `a${i + 1}`, [s]: {} }));
  const restricted = [
    'hostPath', 'gcePersistentDisk', 'awsElasticBlockStore', 'gitRepo', 'nfs', 'iscsi', 'glusterfs', 'rbd', 'flexVolume', 'cinder', 'cephfs',
    'flocker', 'fc', 'azureFile', 'vsphereVolume', 'quobyte', 'azureDisk', 'photonPersistentDisk', 'portworxVolume', 'scaleIO', 'storageos',
  ].map((s, i) => ({ name: `b${i + 1}`, [s]: {} }));
  expectForbidden(
    'restrictedVolumes',
    { volumes: [...allowed, ...restricted, { name: 'c1' }] },
    'restricted volume types',
    'volumes "b1", "b2", "b3", "b4", "b5", "b6", "b7", "b8", "b9", "b10", "b11", "b12", "b13", "b14", "b15", "b16", "b17", "b18", "b19", "b20", "b21", "c1"' +
      ' use restricted volume types ' +
      '"awsElasticBlockStore", "azureDisk", "azureFile", "cephfs", "cinder", "fc", "flexVolume", "flocker", "gcePersistentDisk", "gitRepo", "glusterfs", ' +
      '"hostPath", "iscsi", "nfs", "photonPersistentDisk", "portworxVolume", "quobyte", "rbd", "scaleIO", "storageos", "unknown", "vsphereVolume"',
  );
  assert.equal(run('restrictedVolumes', { volumes: allowed }).allowed, true);
  expectForbidden('restrictedVolumes', { volumes: [{ name: 'x', hostPath: { path: '/' } }] }, 'restricted volume types', 'volume "x" uses restricted volume type "hostPath"');
});

test('seccompProfile_restricted: the original cases', () => {
  expectForbidden('seccompProfile_restricted', { containers: [{ name: 'a' }] }, 'seccompProfile', 'pod or container "a" must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost"', undefined, 19);
  expectForbidden('seccompProfile_restricted', { securityContext: { seccompProfile: { type: 'Unconfined' } }, containers: [{ name: 'a' }] }, 'seccompProfile', 'pod must not set securityContext.seccompProfile.type to "Unconfined"', undefined, 19);
  expectForbidden(
    'seccompProfile_restricted',
    {
      securityContext: { seccompProfile: { type: 'RuntimeDefault' } },
      containers: [
        { name: 'a' },
        { name: 'b', ...sc({}) },
        { name: 'c', ...sc({ seccompProfile: { type: 'Unconfined' } }) },
        { name: 'd', ...sc({ seccompProfile: { type: 'Unconfined' } }) },
        { name: 'e', ...sc({ seccompProfile: { type: 'RuntimeDefault' } }) },
        { name: 'f', ...sc({ seccompProfile: { type: 'RuntimeDefault' } }) },
      ],
    },
    'seccompProfile',
    'containers "c", "d" must not set securityContext.seccompProfile.type to "Unconfined"',
    undefined,
    19,
  );
  expectForbidden(
    'seccompProfile_restricted',
    { containers: [{ name: 'a' }, { name: 'b', ...sc({}) }, { name: 'd', ...sc({ seccompProfile: { type: 'RuntimeDefault' } }) }, { name: 'e', ...sc({ seccompProfile: { type: 'Localhost' } }) }] },
    'seccompProfile',
    'pod or containers "a", "b" must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost"',
    undefined,
    19,
  );
});

test('seccompProfile_baseline: annotations before 1.19, fields after', () => {
  const podKey = names.podSecurity.seccompPodAnnotations[0]!;
  const containerKey = `${names.podSecurity.seccompContainerPrefixes[0]!}a`;
  expectForbidden('seccompProfile_baseline', { containers: [{ name: 'a' }] }, 'seccompProfile', `forbidden annotations ${containerKey}="unconfined", ${podKey}="unconfined"`, { [podKey]: 'unconfined', [containerKey]: 'unconfined' }, 0);
  assert.equal(run('seccompProfile_baseline', { containers: [{ name: 'a' }] }, { [podKey]: 'runtime/default', [containerKey]: 'localhost/x' }, 0).allowed, true);
  assert.equal(run('seccompProfile_baseline', { containers: [{ name: 'a' }] }, { [podKey]: 'docker/default' }, 0).allowed, true);
  expectForbidden(
    'seccompProfile_baseline',
    { securityContext: { seccompProfile: { type: 'Unconfined' } }, containers: [{ name: 'a', ...sc({ seccompProfile: { type: 'Unconfined' } }) }, { name: 'b', ...sc({ seccompProfile: { type: 'Localhost' } }) }] },
    'seccompProfile',
    'pod and container "a" must not set securityContext.seccompProfile.type to "Unconfined"',
    undefined,
    19,
  );
  assert.equal(run('seccompProfile_baseline', { containers: [{ name: 'a' }] }, undefined, 19).allowed, true, 'unset is fine at baseline');
});

test('windowsHostProcess: pod and containers', () => {
  expectForbidden(
    'windowsHostProcess',
    {
      securityContext: { windowsOptions: { hostProcess: true } },
      containers: [
        { name: 'a' },
        { name: 'b', ...sc({}) },
        { name: 'c', ...sc({ windowsOptions: {} }) },
        { name: 'd', ...sc({ windowsOptions: { hostProcess: false } }) },
        { name: 'e', ...sc({ windowsOptions: { hostProcess: true } }) },
        { name: 'f', ...sc({ windowsOptions: { hostProcess: true } }) },
      ],
    },
    'hostProcess',
    'pod and containers "e", "f" must not set securityContext.windowsOptions.hostProcess=true',
  );
});

test('hostNamespaces, privileged, hostPathVolumes, procMount, sysctls, runAsUser, allowPrivilegeEscalation, appArmorProfile', () => {
  expectForbidden('hostNamespaces', { hostNetwork: true, hostPID: true, hostIPC: true }, 'host namespaces', 'hostNetwork=true, hostPID=true, hostIPC=true');
  assert.equal(run('hostNamespaces', { hostNetwork: false, hostPID: false, hostIPC: false }).allowed, true);
  expectForbidden('privileged', { initContainers: [{ name: 'i', ...sc({ privileged: true }) }], containers: [{ name: 'a', ...sc({ privileged: false }) }, { name: 'b', ...sc({ privileged: true }) }] }, 'privileged', 'containers "i", "b" must not set securityContext.privileged=true');
  expectForbidden('hostPathVolumes', { volumes: [{ name: 'a', hostPath: { path: '/a' } }, { name: 'b', emptyDir: {} }, { name: 'c', hostPath: { path: '/c' } }] }, 'hostPath volumes', 'volumes "a", "c"');
  expectForbidden('procMount', { containers: [{ name: 'a', ...sc({ procMount: 'Unmasked' }) }, { name: 'b', ...sc({ procMount: 'Default' }) }] }, 'procMount', 'container "a" must not set securityContext.procMount to "Unmasked"');
  expectForbidden('sysctls', { securityContext: { sysctls: [{ name: 'a' }, { name: 'kernel.shm_rmid_forced' }, { name: 'b' }] } }, 'forbidden sysctls', 'a, b');
  expectForbidden('runAsUser', { securityContext: { runAsUser: 0 }, containers: [{ name: 'a', ...sc({ runAsUser: 0 }) }, { name: 'b', ...sc({ runAsUser: 1000 }) }, { name: 'c', ...sc({ runAsUser: 0 }) }] }, 'runAsUser=0', 'pod and containers "a", "c" must not set runAsUser=0', undefined, 23);
  assert.equal(run('runAsUser', { securityContext: { runAsUser: 1000 }, containers: [{ name: 'a' }] }, undefined, 23).allowed, true);
  expectForbidden(
    'allowPrivilegeEscalation',
    { containers: [{ name: 'a' }, { name: 'b', ...sc({ allowPrivilegeEscalation: true }) }, { name: 'c', ...sc({ allowPrivilegeEscalation: false }) }] },
    'allowPrivilegeEscalation != false',
    'containers "a", "b" must set securityContext.allowPrivilegeEscalation=false',
    undefined,
    8,
  );
  assert.equal(run('allowPrivilegeEscalation', { os: { name: 'windows' }, containers: [{ name: 'a' }] }, undefined, 25).allowed, true);
  const prefix = names.podSecurity.appArmorContainerPrefixes[0]!;
  expectForbidden('appArmorProfile', {}, 'forbidden AppArmor profiles', `${prefix}a="unconfined", ${prefix}b="foo"`, { [`${prefix}b`]: 'foo', [`${prefix}a`]: 'unconfined', [`${prefix}c`]: 'runtime/default', [`${prefix}d`]: 'localhost/x', [`${prefix}e`]: '' });
});

test('a check never throws on a malformed spec', () => {
  const weird: Array<Record<string, unknown>> = [
    { containers: 'x' },
    { containers: [null, 1, 'a', { securityContext: 'x' }] },
    { securityContext: [], volumes: [null, { hostPath: null }], hostNetwork: 'yes' },
    { containers: [{ name: 5, ports: 'x', securityContext: { capabilities: { add: 'ALL', drop: [1, null] }, seLinuxOptions: [] } }] },
  ];
  for (const c of DEFAULT_CHECKS) for (const r of c.versions) for (const spec of weird) assert.doesNotThrow(() => r.check(podView({ annotations: 'x' }, spec)));
});

test('registry: versions, overrides and latest as the original', () => {
  const ev = new Evaluator(DEFAULT_CHECKS);
  assert.equal(ev.maxVersion.minor, 25);
  const pod = podView({}, { containers: [{ name: 'a', ...sc({ capabilities: { add: ['SYS_ADMIN'] } }) }], volumes: [{ name: 'h', hostPath: { path: '/' } }] });
  const at = (level: Level, minor?: number) => ev.evaluateAggregate({ level, version: minor === undefined ? LATEST : majorMinor(1, minor) }, pod);
  assert.equal(at('privileged').allowed, true);
  assert.equal(forbiddenReason(at('baseline')), 'non-default capabilities, hostPath volumes');
  // Restricted at v1.0: capabilities_restricted does not exist yet, so the baseline capability check runs; restrictedVolumes replaces hostPathVolumes.
  assert.equal(forbiddenReason(at('restricted', 0)), 'non-default capabilities, restricted volume types, runAsNonRoot != true');
  // Latest: the restricted capability check overrides the baseline one; seccomp and privilege escalation apply.
  assert.equal(
    forbiddenReason(at('restricted')),
    // Baseline IDs sorted, then restricted IDs sorted (capabilities_restricted before restrictedVolumes).
    'allowPrivilegeEscalation != false, unrestricted capabilities, restricted volume types, runAsNonRoot != true, seccompProfile',
  );
  assert.equal(forbiddenDetail(at('restricted', 99)), forbiddenDetail(at('restricted')), 'a future version evaluates as the newest');
  assert.throws(() => new Evaluator([...DEFAULT_CHECKS, DEFAULT_CHECKS[0]!]), /multiple checks registered for ID allowPrivilegeEscalation/);
  assert.throws(
    () => new Evaluator([{ id: 'x', level: 'baseline', versions: [{ minimumVersion: majorMinor(1, 0), check: () => ({ allowed: true }), overrides: ['y'] }] }]),
    /only restricted checks may set overrides/,
  );
});
