/**
 * The original's fixture suite (k8s.io/pod-security-admission/test:
 * fixtures.go and fixtures_<check>.go, v1.25), ported: for each level and
 * every policy version v1.0..v1.25 and latest, the minimal valid pod of that
 * level and version is admitted, and for each check the level runs at that
 * version, the generated passing pods are admitted and the failing pods are
 * rejected with a 403 naming the check. Run through the plugin with the
 * namespace's enforce labels, as the original's run.go does against a
 * server.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PodSecurityAdmission } from '../../src/admission/plugins/pod-security/admission.ts';
import { LABELS, majorMinor, versionString, type Version } from '../../src/admission/plugins/pod-security/api.ts';
import { DEFAULT_CHECKS } from '../../src/admission/plugins/pod-security/checks.ts';
import { defaultConfig } from '../../src/admission/plugins/pod-security/config.ts';
import { defaultEvaluator } from '../../src/admission/plugins/pod-security/index.ts';
import { StatusError } from '../../src/api/status.ts';
import { names } from '../../src/naming/index.ts';
import { attrs, FakeCluster, pod, POD } from './pod-security-helpers.ts';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- fixtures poke deep into pods
type Level = 'baseline' | 'restricted';

const tweak = (p: Json, f: (p: Json) => void): Json => {
  const c = structuredClone(p);
  f(c);
  return c;
};
const c0 = (p: Json): Json => p['containers'][0];
const i0 = (p: Json): Json => p['initContainers'][0];
const sc = (c: Json): Json => (c['securityContext'] ??= {});
const podSc = (p: Json): Json => (p['securityContext'] ??= {});

// ---- minimal valid pods (fixtures.go) ----

const baseline_1_0: Json = { initContainers: [{ name: 'initcontainer1', image: 'k8s.gcr.io/pause' }], containers: [{ name: 'container1', image: 'k8s.gcr.io/pause' }] };
const restricted_1_0 = tweak(baseline_1_0, (p) => (p['securityContext'] = { runAsNonRoot: true }));
const restricted_1_8 = tweak(restricted_1_0, (p) => {
  c0(p)['securityContext'] = { allowPrivilegeEscalation: false };
  i0(p)['securityContext'] = { allowPrivilegeEscalation: false };
});
const restricted_1_19 = tweak(restricted_1_8, (p) => (p['securityContext']['seccompProfile'] = { type: 'RuntimeDefault' }));
const restricted_1_22 = tweak(restricted_1_19, (p) => {
  sc(c0(p))['capabilities'] = { drop: ['ALL'] };
  sc(i0(p))['capabilities'] = { drop: ['ALL'] };
});

const MINIMAL: Record<Level, Array<[number, Json]>> = {
  baseline: [[0, baseline_1_0]],
  restricted: [
    [0, restricted_1_0],
    [8, restricted_1_8],
    [19, restricted_1_19],
    [22, restricted_1_22],
  ],
};

function minimalPod(level: Level, minor: number): Json {
  let found: Json | undefined;
  for (const [m, p] of MINIMAL[level]) if (m <= minor) found = p;
  return structuredClone(found!);
}

// ---- generators (fixtures_<check>.go) ----

interface Generator {
  /** Substring of the rejection (the check's reason); the check ID when absent. */
  expect?: string;
  pass(p: Json): Json[];
  fail(p: Json): Json[];
}

const appArmorPrefix = names.podSecurity.appArmorContainerPrefixes[0]!;
const seccompPodKey = names.podSecurity.seccompPodAnnotations[0]!;
const seccompContainerPrefix = names.podSecurity.seccompContainerPrefixes[0]!;
const ANNOTATIONS = Symbol('annotations');

/** Per check: generators by the first minor version they apply to. */
const GENERATORS: Record<string, Array<[number, Generator]>> = {
  allowPrivilegeEscalation: [[8, {
    pass: () => [],
    fail: (p) => [
      tweak(p, (p) => (sc(c0(p))['allowPrivilegeEscalation'] = true)),
      tweak(p, (p) => (sc(i0(p))['allowPrivilegeEscalation'] = true)),
      tweak(p, (p) => delete sc(c0(p))['allowPrivilegeEscalation']),
      tweak(p, (p) => delete c0(p)['securityContext']),
    ],
  }]],
  appArmorProfile: [[0, {
    expect: 'forbidden AppArmor profile',
    pass: (p) => [tweak(p, (p) => (p[ANNOTATIONS as unknown as string] = { [`${appArmorPrefix}container1`]: 'runtime/default', [`${appArmorPrefix}initcontainer1`]: 'localhost/foo' }))],
    fail: (p) => [
      tweak(p, (p) => (p[ANNOTATIONS as unknown as string] = { [`${appArmorPrefix}container1`]: 'unconfined' })),
      tweak(p, (p) => (p[ANNOTATIONS as unknown as string] = { [`${appArmorPrefix}initcontainer1`]: 'somethingelse' })),
    ],
  }]],
  capabilities_baseline: [[0, {
    expect: 'non-default capabilities',
    pass: (p) => [tweak(p, (p) => {
      const add = ['AUDIT_WRITE', 'CHOWN', 'DAC_OVERRIDE', 'FOWNER', 'FSETID', 'KILL', 'MKNOD', 'NET_BIND_SERVICE', 'SETFCAP', 'SETGID', 'SETPCAP', 'SETUID', 'SYS_CHROOT'];
      sc(c0(p))['capabilities'] = { add };
      sc(i0(p))['capabilities'] = { add };
    })],
    fail: (p) => [
      tweak(p, (p) => (sc(c0(p))['capabilities'] = { add: ['NET_RAW'] })),
      tweak(p, (p) => (sc(i0(p))['capabilities'] = { add: ['SYS_ADMIN'] })),
    ],
  }]],
  capabilities_restricted: [[22, {
    expect: 'unrestricted capabilities',
    pass: (p) => [tweak(p, (p) => {
      sc(c0(p))['capabilities'] = { drop: ['ALL'], add: ['NET_BIND_SERVICE'] };
      sc(i0(p))['capabilities'] = { drop: ['ALL'], add: ['NET_BIND_SERVICE'] };
    })],
    fail: (p) => [
      tweak(p, (p) => (sc(c0(p))['capabilities']['drop'] = [])),
      tweak(p, (p) => (sc(i0(p))['capabilities']['drop'] = [])),
      tweak(p, (p) => (sc(c0(p))['capabilities']['drop'] = ['SYS_TIME', 'SYS_MODULE', 'SYS_ADMIN', 'NET_RAW', 'CHOWN', 'KILL', 'SETUID', 'NET_BIND_SERVICE'])),
      tweak(p, (p) => {
        const add = ['AUDIT_WRITE', 'CHOWN', 'NET_BIND_SERVICE', 'SETUID'];
        sc(c0(p))['capabilities']['add'] = add;
        sc(i0(p))['capabilities']['add'] = add;
      }),
    ],
  }]],
  hostNamespaces: [[0, {
    expect: 'host namespaces',
    pass: (p) => [tweak(p, (p) => Object.assign(p, { hostNetwork: false, hostPID: false, hostIPC: false }))],
    fail: (p) => [tweak(p, (p) => (p['hostNetwork'] = true)), tweak(p, (p) => (p['hostPID'] = true)), tweak(p, (p) => (p['hostIPC'] = true))],
  }]],
  hostPathVolumes: [[0, {
    expect: 'hostPath volumes',
    pass: (p) => [tweak(p, (p) => (p['volumes'] = [{ name: 'volume-emptydir', emptyDir: {} }]))],
    fail: (p) => [tweak(p, (p) => (p['volumes'] = [{ name: 'volume-hostpath', hostPath: { path: '/a' } }]))],
  }]],
  hostPorts: [[0, {
    expect: 'hostPort',
    pass: (p) => [tweak(p, (p) => (c0(p)['ports'] = [{ containerPort: 12345 }]))],
    fail: (p) => [tweak(p, (p) => (c0(p)['ports'] = [{ containerPort: 12345, hostPort: 12345 }])), tweak(p, (p) => (i0(p)['ports'] = [{ containerPort: 12346, hostPort: 12346 }]))],
  }]],
  privileged: [[0, {
    pass: (p) => [tweak(p, (p) => {
      sc(c0(p))['privileged'] = false;
      sc(i0(p))['privileged'] = false;
    })],
    fail: (p) => [tweak(p, (p) => (sc(c0(p))['privileged'] = true)), tweak(p, (p) => (sc(i0(p))['privileged'] = true))],
  }]],
  procMount: [[0, {
    pass: (p) => [tweak(p, (p) => {
      sc(c0(p))['procMount'] = 'Default';
      sc(i0(p))['procMount'] = 'Default';
    })],
    fail: (p) => [tweak(p, (p) => (sc(c0(p))['procMount'] = 'Unmasked')), tweak(p, (p) => (sc(i0(p))['procMount'] = 'Unmasked'))],
  }]],
  restrictedVolumes: [[0, {
    expect: 'restricted volume types',
    pass: (p) => [tweak(p, (p) => (p['volumes'] = [
      { name: 'volume1', emptyDir: {} },
      { name: 'volume2', secret: { secretName: 'test' } },
      { name: 'volume3', persistentVolumeClaim: { claimName: 'test' } },
      { name: 'volume4', downwardAPI: { items: [{ path: 'labels', fieldRef: { fieldPath: 'metadata.labels' } }] } },
      { name: 'volume5', configMap: { name: 'test' } },
      { name: 'volume6', projected: { sources: [] } },
    ]))],
    fail: (p) =>
      [
        { gcePersistentDisk: { pdName: 'test' } }, { awsElasticBlockStore: { volumeID: 'test' } }, { gitRepo: { repository: 'github.com/kubernetes/kubernetes' } },
        { nfs: { server: 'test', path: '/test' } }, { iscsi: { targetPortal: 'test', iqn: 'iqn.2001-04.com.example:storage.kube.sys1.xyz', lun: 0 } },
        { glusterfs: { path: 'test', endpoints: 'test' } }, { rbd: { monitors: ['test'], image: 'test' } }, { flexVolume: { driver: 'test' } },
        { cinder: { volumeID: 'test' } }, { cephfs: { monitors: ['test'] } }, { flocker: { datasetName: 'test' } }, { fc: { wwids: ['test'] } },
        { azureFile: { secretName: 'test', shareName: 'test' } }, { vsphereVolume: { volumePath: 'test' } }, { quobyte: { registry: 'localhost:1234', volume: 'test' } },
        { azureDisk: { diskName: 'test', diskURI: 'https://test.blob.core.windows.net/test/test.vhd' } }, { portworxVolume: { volumeID: 'test', fsType: 'ext4' } },
        { scaleIO: { volumeName: 'test', gateway: 'localhost', system: 'test' } }, { storageos: { volumeName: 'test' } }, { hostPath: { path: '/dev/null' } },
      ].map((source) => tweak(p, (p) => (p['volumes'] = [{ name: 'volume1', ...source }]))),
  }]],
  runAsNonRoot: [[0, {
    pass: (p) => [
      tweak(p, (p) => {
        podSc(p)['runAsNonRoot'] = true;
        delete sc(c0(p))['runAsNonRoot'];
        delete sc(i0(p))['runAsNonRoot'];
      }),
      tweak(p, (p) => {
        delete podSc(p)['runAsNonRoot'];
        sc(c0(p))['runAsNonRoot'] = true;
        sc(i0(p))['runAsNonRoot'] = true;
      }),
    ],
    fail: (p) => [
      tweak(p, (p) => {
        delete podSc(p)['runAsNonRoot'];
        delete sc(c0(p))['runAsNonRoot'];
        delete sc(i0(p))['runAsNonRoot'];
      }),
      tweak(p, (p) => (podSc(p)['runAsNonRoot'] = false)),
      tweak(p, (p) => (sc(c0(p))['runAsNonRoot'] = false)),
      tweak(p, (p) => (sc(i0(p))['runAsNonRoot'] = false)),
    ],
  }]],
  runAsUser: [[23, {
    expect: 'runAsUser=0',
    pass: (p) => [tweak(p, (p) => {
      podSc(p)['runAsUser'] = 1000;
      sc(c0(p))['runAsUser'] = 1000;
      sc(i0(p))['runAsUser'] = 1000;
    })],
    fail: (p) => [tweak(p, (p) => (podSc(p)['runAsUser'] = 0)), tweak(p, (p) => (sc(c0(p))['runAsUser'] = 0)), tweak(p, (p) => (sc(i0(p))['runAsUser'] = 0))],
  }]],
  seLinuxOptions: [[0, {
    pass: (p) => [
      tweak(p, (p) => {
        delete podSc(p)['seLinuxOptions'];
        delete sc(c0(p))['seLinuxOptions'];
        sc(i0(p))['seLinuxOptions'] = {};
      }),
      tweak(p, (p) => {
        podSc(p)['seLinuxOptions'] = { type: 'container_t', level: '' };
        sc(c0(p))['seLinuxOptions'] = { type: 'container_init_t', level: 'somevalue' };
        sc(i0(p))['seLinuxOptions'] = { type: 'container_kvm_t' };
      }),
    ],
    fail: (p) => [
      tweak(p, (p) => (podSc(p)['seLinuxOptions'] = { type: 'somevalue' })),
      tweak(p, (p) => (sc(c0(p))['seLinuxOptions'] = { type: 'somevalue' })),
      tweak(p, (p) => (sc(i0(p))['seLinuxOptions'] = { type: 'somevalue' })),
      tweak(p, (p) => (podSc(p)['seLinuxOptions'] = { user: 'somevalue' })),
      tweak(p, (p) => (podSc(p)['seLinuxOptions'] = { role: 'somevalue' })),
    ],
  }]],
  seccompProfile_baseline: [
    [0, {
      expect: 'seccompProfile',
      pass: (p) => [tweak(p, (p) => (p[ANNOTATIONS as unknown as string] = { [seccompPodKey]: 'runtime/default', [`${seccompContainerPrefix}container1`]: 'localhost/testing' }))],
      fail: (p) => [
        tweak(p, (p) => (p[ANNOTATIONS as unknown as string] = { [seccompPodKey]: 'unconfined' })),
        tweak(p, (p) => (p[ANNOTATIONS as unknown as string] = { [`${seccompContainerPrefix}container1`]: 'unconfined' })),
        tweak(p, (p) => (p[ANNOTATIONS as unknown as string] = { [`${seccompContainerPrefix}initcontainer1`]: 'unconfined' })),
      ],
    }],
    [19, {
      expect: 'seccompProfile',
      pass: (p) => [tweak(p, (p) => {
        podSc(p)['seccompProfile'] = { type: 'RuntimeDefault' };
        sc(c0(p))['seccompProfile'] = { type: 'RuntimeDefault' };
      })],
      fail: (p) => [
        tweak(p, (p) => (podSc(p)['seccompProfile'] = { type: 'Unconfined' })),
        tweak(p, (p) => (sc(c0(p))['seccompProfile'] = { type: 'Unconfined' })),
        tweak(p, (p) => (sc(i0(p))['seccompProfile'] = { type: 'Unconfined' })),
      ],
    }],
  ],
  seccompProfile_restricted: [[19, {
    expect: 'seccompProfile',
    pass: (p) => [tweak(p, (p) => {
      podSc(p)['seccompProfile'] = { type: 'RuntimeDefault' };
      sc(c0(p))['seccompProfile'] = { type: 'Localhost', localhostProfile: 'testing' };
    })],
    fail: (p) => [
      tweak(p, (p) => delete podSc(p)['seccompProfile']),
      tweak(p, (p) => (podSc(p)['seccompProfile'] = { type: 'Unconfined' })),
      tweak(p, (p) => (sc(c0(p))['seccompProfile'] = { type: 'Unconfined' })),
      tweak(p, (p) => (sc(i0(p))['seccompProfile'] = { type: 'Unconfined' })),
    ],
  }]],
  sysctls: [[0, {
    expect: 'forbidden sysctl',
    pass: (p) => [
      tweak(p, (p) => delete podSc(p)['sysctls']),
      tweak(p, (p) => (podSc(p)['sysctls'] = ['kernel.shm_rmid_forced', 'net.ipv4.ip_local_port_range', 'net.ipv4.tcp_syncookies', 'net.ipv4.ping_group_range', 'net.ipv4.ip_unprivileged_port_start'].map((name) => ({ name, value: '0' })))),
    ],
    fail: (p) => [tweak(p, (p) => (podSc(p)['sysctls'] = [{ name: 'othersysctl', value: 'other' }]))],
  }]],
  windowsHostProcess: [[0, {
    expect: 'hostProcess',
    pass: (p) => [tweak(p, (p) => {
      podSc(p)['windowsOptions'] = { hostProcess: false };
      sc(c0(p))['windowsOptions'] = { hostProcess: false };
    })],
    fail: (p) => [
      tweak(p, (p) => (podSc(p)['windowsOptions'] = { hostProcess: true })),
      tweak(p, (p) => (sc(c0(p))['windowsOptions'] = { hostProcess: true })),
      tweak(p, (p) => (sc(i0(p))['windowsOptions'] = { hostProcess: true })),
    ],
  }]],
};

function generatorAt(check: string, minor: number): Generator | undefined {
  let found: Generator | undefined;
  for (const [m, g] of GENERATORS[check] ?? []) if (m <= minor) found = g;
  return found;
}

/** The checks a level runs at a version: its own and, for restricted, the baseline ones not overridden (as the registry builds them). */
function checksFor(level: Level, minor: number): string[] {
  const applies = (id: string) => DEFAULT_CHECKS.find((c) => c.id === id)!.versions.filter((v) => v.minimumVersion.minor <= minor);
  const baseline = DEFAULT_CHECKS.filter((c) => c.level === 'baseline' && applies(c.id).length > 0).map((c) => c.id);
  if (level === 'baseline') return baseline;
  const restricted = DEFAULT_CHECKS.filter((c) => c.level === 'restricted' && applies(c.id).length > 0);
  const overridden = new Set(restricted.flatMap((c) => applies(c.id).at(-1)!.overrides ?? []));
  return [...baseline.filter((id) => !overridden.has(id)), ...restricted.map((c) => c.id)];
}

const cluster = new FakeCluster();
const admission = new PodSecurityAdmission(defaultConfig(), defaultEvaluator(), cluster);

async function admit(level: Level, version: Version, spec: Json): Promise<StatusError | undefined> {
  const ns = `${level}-${versionString(version).replace('.', '-')}`;
  cluster.namespaces.set(ns, { [LABELS.enforce]: level, [LABELS.enforceVersion]: versionString(version) });
  const annotations = spec[ANNOTATIONS as unknown as string] as Record<string, string> | undefined;
  const body = { ...spec };
  delete body[ANNOTATIONS as unknown as string];
  try {
    await admission.validate(attrs({ rt: POD, operation: 'CREATE', object: pod('p', ns, body, annotations ? { annotations } : {}) }));
    return undefined;
  } catch (e) {
    if (e instanceof StatusError) return e;
    throw e;
  }
}

const MAX_MINOR = 25;

test('every check of the default set has fixtures', () => {
  for (const c of DEFAULT_CHECKS) assert.ok(GENERATORS[c.id], `no fixtures for ${c.id}`);
});

for (const level of ['baseline', 'restricted'] as const) {
  test(`${level}: minimal valid pods pass and each check's fixtures pass or fail, v1.0 to v1.${MAX_MINOR} and latest`, async () => {
    let cases = 0;
    for (let minor = 0; minor <= MAX_MINOR + 1; minor++) {
      const latest = minor > MAX_MINOR;
      const fixtureMinor = latest ? MAX_MINOR : minor;
      const version: Version = latest ? { major: 0, minor: 0, latest: true } : majorMinor(1, minor);
      const label = `${level}:${versionString(version)}`;
      const base = minimalPod(level, fixtureMinor);
      assert.equal((await admit(level, version, base))?.message, undefined, `${label}: the minimal valid pod`);
      for (const check of checksFor(level, fixtureMinor)) {
        const gen = generatorAt(check, fixtureMinor);
        assert.ok(gen, `${label}: no generator for ${check}`);
        const expect = gen.expect ?? check;
        for (const [i, p] of gen.pass(structuredClone(base)).entries()) {
          assert.equal((await admit(level, version, p))?.message, undefined, `${label}: ${check} pass ${i}`);
          cases++;
        }
        const fails = gen.fail(structuredClone(base));
        assert.ok(fails.length > 0, `${label}: ${check} has failing fixtures`);
        for (const [i, p] of fails.entries()) {
          const err = await admit(level, version, p);
          assert.ok(err, `${label}: ${check} fail ${i} was admitted`);
          assert.equal(err.code, 403);
          assert.match(err.message, new RegExp(`^pods "p" is forbidden: violates PodSecurity "${label}": `));
          assert.ok(err.message.includes(expect), `${label}: ${check} fail ${i}: ${err.message} lacks ${expect}`);
          cases++;
        }
      }
    }
    assert.ok(cases > 500, `ran ${cases} cases`);
  });
}

test('failing fixtures of every level pass at privileged', async () => {
  cluster.namespaces.set('priv', { [LABELS.enforce]: 'privileged' });
  for (const check of checksFor('restricted', MAX_MINOR)) {
    for (const p of generatorAt(check, MAX_MINOR)!.fail(minimalPod('restricted', MAX_MINOR))) {
      const body = { ...p };
      delete body[ANNOTATIONS as unknown as string];
      await admission.validate(attrs({ rt: POD, operation: 'CREATE', object: pod('p', 'priv', body) }));
    }
  }
});
