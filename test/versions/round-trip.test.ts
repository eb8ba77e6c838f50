/**
 * Every served version pair of every resource with more than one version
 * (spec 9.2 rule 2, spec 9.3): an object written through one version reads
 * back through every other, over JSON and Protobuf (the Protobuf answer is
 * the codec's encoding of the JSON answer), and writing what a version shows
 * back through it (alternately as JSON and as Protobuf) loses nothing: the
 * writer's view afterwards is what it was.
 */
import 'reflect-metadata';
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { webcrypto } from 'node:crypto';
import * as x509 from '@peculiar/x509';
import { startTestServer, type TestServer } from '../support/test-server.ts';
import { apiGroup, names } from '../../src/naming/index.ts';
import { decodeObject, encodeObject } from '../../src/protobuf/index.ts';

x509.cryptoProvider.set(webcrypto as unknown as Parameters<typeof x509.cryptoProvider.set>[0]);

type Obj = Record<string, unknown> & { metadata: Record<string, unknown> };

interface Case {
  /** Resource path segment and whether it is namespaced. */
  readonly resource: string;
  readonly namespaced: boolean;
  readonly kind: string;
  /** `<group>/<version>` or `v1`: every version the resource is served at. */
  readonly versions: readonly string[];
  /** Objects to write: through which version, and the body (name filled in). */
  readonly samples: ReadonlyArray<{ readonly via: string; readonly body: () => Record<string, unknown> }>;
  /**
   * True once the server's own writes after a create are done (a FlowSchema's Dangling condition, written by
   * the APF config consumer), so the reads and conditional writes that follow do not race them.
   */
  readonly settled?: (o: Record<string, unknown>) => boolean;
}

const ns = 'versions';
let csrPem = '';

const dsc = apiGroup('discovery');
const ev = apiGroup('events');
const nodeG = apiGroup('node');
const st = apiGroup('storage');
const fc = apiGroup('flowcontrol.apiserver');
const adm = apiGroup('admissionregistration');
const cert = apiGroup('certificates');

const podTemplate = { spec: { containers: [{ name: 'c', image: 'busybox' }], restartPolicy: 'OnFailure' } };
const webhook = (name: string, extra: Record<string, unknown> = {}): Record<string, unknown> => ({
  name,
  clientConfig: { url: 'https://127.0.0.1:9443/hook' },
  rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] }],
  ...extra,
});

const CASES: readonly Case[] = [
  {
    resource: 'cronjobs', namespaced: true, kind: 'CronJob', versions: ['batch/v1', 'batch/v1beta1'],
    samples: [
      { via: 'batch/v1', body: () => ({ spec: { schedule: '*/5 * * * *', jobTemplate: { spec: { template: podTemplate } } } }) },
      { via: 'batch/v1beta1', body: () => ({ spec: { schedule: '0 1 * * *', suspend: true, jobTemplate: { spec: { template: podTemplate } } } }) },
    ],
  },
  {
    resource: 'horizontalpodautoscalers', namespaced: true, kind: 'HorizontalPodAutoscaler', versions: ['autoscaling/v2', 'autoscaling/v1', 'autoscaling/v2beta2'],
    samples: [
      {
        via: 'autoscaling/v2',
        body: () => ({
          spec: {
            scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' }, minReplicas: 2, maxReplicas: 9,
            metrics: [
              { type: 'Pods', pods: { metric: { name: 'qps' }, target: { type: 'AverageValue', averageValue: '10' } } },
              { type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 60 } } },
            ],
            behavior: { scaleDown: { stabilizationWindowSeconds: 120, policies: [{ type: 'Pods', value: 1, periodSeconds: 60 }] } },
          },
        }),
      },
      { via: 'autoscaling/v1', body: () => ({ spec: { scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' }, maxReplicas: 5, targetCPUUtilizationPercentage: 70 } }) },
      { via: 'autoscaling/v2beta2', body: () => ({ spec: { scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' }, minReplicas: 1, maxReplicas: 3, metrics: [{ type: 'Resource', resource: { name: 'memory', target: { type: 'AverageValue', averageValue: '100Mi' } } }] } }) },
    ],
  },
  {
    resource: 'poddisruptionbudgets', namespaced: true, kind: 'PodDisruptionBudget', versions: ['policy/v1', 'policy/v1beta1'],
    samples: [
      { via: 'policy/v1', body: () => ({ spec: { minAvailable: 1, selector: {} } }) },
      { via: 'policy/v1beta1', body: () => ({ spec: { maxUnavailable: '25%', selector: {} } }) },
      { via: 'policy/v1beta1', body: () => ({ spec: { minAvailable: 2, selector: { matchLabels: { app: 'web' } } } }) },
    ],
  },
  {
    resource: 'endpointslices', namespaced: true, kind: 'EndpointSlice', versions: [`${dsc}/v1`, `${dsc}/v1beta1`],
    samples: [
      {
        via: `${dsc}/v1`,
        body: () => ({ addressType: 'IPv4', endpoints: [{ addresses: ['10.0.0.1'], nodeName: 'n1', zone: 'z1', deprecatedTopology: { rack: 'r1' } }, { addresses: ['10.0.0.2'] }], ports: [{ name: 'http', port: 80, protocol: 'TCP' }] }),
      },
      {
        via: `${dsc}/v1beta1`,
        // `conditions: {}` as Go prints it: a v1 write that changes the endpoints drops deprecatedTopology (read-only in v1).
        body: () => ({ addressType: 'IPv4', endpoints: [{ addresses: ['10.0.0.3'], conditions: {}, nodeName: 'n2', topology: { [names.labels.topologyZone]: 'z2', [names.labels.hostname]: 'n2', rack: 'r2' } }] }),
      },
    ],
  },
  {
    resource: 'events', namespaced: true, kind: 'Event', versions: ['v1', `${ev}/v1`, `${ev}/v1beta1`],
    samples: [
      {
        via: `${ev}/v1beta1`,
        body: () => ({
          eventTime: '2026-11-25T10:00:00.000000Z', reportingController: 'example.com/ctl', reportingInstance: 'ctl-1', action: 'Check', reason: 'Checked',
          regarding: { kind: 'Pod', namespace: ns, name: 'p' }, note: 'looked', type: 'Normal',
        }),
      },
      { via: 'v1', body: () => ({ involvedObject: { kind: 'Pod', namespace: ns, name: 'p' }, reason: 'Started', message: 'hello', type: 'Normal', count: 2 }) },
    ],
  },
  {
    resource: 'runtimeclasses', namespaced: false, kind: 'RuntimeClass', versions: [`${nodeG}/v1`, `${nodeG}/v1beta1`],
    samples: [{ via: `${nodeG}/v1beta1`, body: () => ({ handler: 'runc', overhead: { podFixed: { cpu: '100m' } } }) }],
  },
  {
    resource: 'csistoragecapacities', namespaced: true, kind: 'CSIStorageCapacity', versions: [`${st}/v1`, `${st}/v1beta1`],
    samples: [{ via: `${st}/v1beta1`, body: () => ({ storageClassName: 'fast', capacity: '10Gi', nodeTopology: { matchLabels: { zone: 'a' } } }) }],
  },
  {
    resource: 'flowschemas', namespaced: false, kind: 'FlowSchema', versions: [`${fc}/v1beta2`, `${fc}/v1beta1`],
    settled: (o) => ((o['status'] as { conditions?: Array<{ type: string }> } | undefined)?.conditions ?? []).some((c) => c.type === 'Dangling'),
    samples: [
      {
        via: `${fc}/v1beta1`,
        body: () => ({
          spec: {
            priorityLevelConfiguration: { name: 'workload-low' }, distinguisherMethod: { type: 'ByUser' },
            rules: [{ subjects: [{ kind: 'Group', group: { name: 'system:authenticated' } }], resourceRules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'], clusterScope: true, namespaces: ['*'] }] }],
          },
        }),
      },
    ],
  },
  {
    resource: 'prioritylevelconfigurations', namespaced: false, kind: 'PriorityLevelConfiguration', versions: [`${fc}/v1beta2`, `${fc}/v1beta1`],
    samples: [
      { via: `${fc}/v1beta2`, body: () => ({ spec: { type: 'Limited', limited: { assuredConcurrencyShares: 20, limitResponse: { type: 'Queue', queuing: { queues: 16, handSize: 4, queueLengthLimit: 50 } } } } }) },
      { via: `${fc}/v1beta1`, body: () => ({ spec: { type: 'Limited', limited: { assuredConcurrencyShares: 5, limitResponse: { type: 'Reject' } } } }) },
    ],
  },
  {
    resource: 'validatingwebhookconfigurations', namespaced: false, kind: 'ValidatingWebhookConfiguration', versions: [`${adm}/v1`, `${adm}/v1beta1`],
    samples: [
      { via: `${adm}/v1`, body: () => ({ webhooks: [webhook('a.example.com', { sideEffects: 'None', admissionReviewVersions: ['v1'] })] }) },
      { via: `${adm}/v1beta1`, body: () => ({ webhooks: [webhook('b.example.com')] }) },
    ],
  },
  {
    resource: 'mutatingwebhookconfigurations', namespaced: false, kind: 'MutatingWebhookConfiguration', versions: [`${adm}/v1`, `${adm}/v1beta1`],
    samples: [{ via: `${adm}/v1beta1`, body: () => ({ webhooks: [webhook('m.example.com', { sideEffects: 'NoneOnDryRun' })] }) }],
  },
  {
    resource: 'certificatesigningrequests', namespaced: false, kind: 'CertificateSigningRequest', versions: [`${cert}/v1`, `${cert}/v1beta1`],
    samples: [
      { via: `${cert}/v1beta1`, body: () => ({ spec: { request: Buffer.from(csrPem).toString('base64') } }) },
      { via: `${cert}/v1`, body: () => ({ spec: { request: Buffer.from(csrPem).toString('base64'), signerName: 'example.com/signer', usages: ['client auth'] } }) },
    ],
  },
];

function basePath(gv: string, resource: string, namespaced: boolean): string {
  const root = gv.includes('/') ? `/apis/${gv}` : `/api/${gv}`;
  return `${root}${namespaced ? `/namespaces/${ns}` : ''}/${resource}`;
}

function groupVersion(gv: string): { group: string; version: string } {
  const i = gv.lastIndexOf('/');
  return i < 0 ? { group: '', version: gv } : { group: gv.slice(0, i), version: gv.slice(i + 1) };
}

/** What may differ between two reads of an unchanged object: its version and who last wrote it. */
function comparable(o: Obj): Obj {
  const copy = structuredClone(o);
  delete copy.metadata['resourceVersion'];
  delete copy.metadata['managedFields'];
  return copy;
}

const PROTOBUF = 'application/vnd.kubernetes.protobuf';

describe('versions: every served pair round-trips, JSON and Protobuf', () => {
  let srv: TestServer;
  before(async () => {
    const ec = await webcrypto.subtle.generateKey({ name: 'ECDSA', namedCurve: 'P-256' }, true, ['sign', 'verify']);
    csrPem = (await x509.Pkcs10CertificateRequestGenerator.create({ name: 'CN=alice', keys: ec, signingAlgorithm: { name: 'ECDSA', hash: 'SHA-256' } })).toString('pem');
    srv = await startTestServer();
    const res = await srv.request('POST', '/api/v1/namespaces', { metadata: { name: ns } });
    assert.equal(res.status, 201, res.body);
  });
  after(async () => {
    await srv?.stop();
  });

  let n = 0;
  for (const c of CASES) {
    it(`${c.resource}: ${c.versions.join(', ')}`, async () => {
      for (const sample of c.samples) {
        const name = `rt-${++n}`;
        const body = { apiVersion: sample.via, kind: c.kind, metadata: { name, ...(c.namespaced ? { namespace: ns } : {}) }, ...sample.body() };
        const created = await srv.request('POST', basePath(sample.via, c.resource, c.namespaced), body);
        assert.equal(created.status, 201, `create through ${sample.via}: ${created.body}`);
        const writerPath = `${basePath(sample.via, c.resource, c.namespaced)}/${name}`;
        for (let i = 0; c.settled !== undefined && !c.settled((await srv.request('GET', writerPath)).json()); i++) {
          assert.ok(i < 400, `${name}: the server's own status write never came`);
          await new Promise((r) => setTimeout(r, 50));
        }
        let before = (await srv.request('GET', writerPath)).json<Obj>();
        for (const reader of c.versions) {
          const path = `${basePath(reader, c.resource, c.namespaced)}/${name}`;
          const json = await srv.request('GET', path);
          assert.equal(json.status, 200, `GET through ${reader}: ${json.body}`);
          const seen = json.json<Obj>();
          assert.equal(seen['apiVersion'], reader);
          assert.equal(seen['kind'], c.kind);
          assert.equal(seen.metadata['uid'], before.metadata['uid']);
          // Protobuf: the same object, as the codec encodes the JSON answer.
          const pb = await srv.request('GET', path, undefined, { headers: { accept: PROTOBUF } });
          assert.equal(pb.status, 200, `GET ${reader} as Protobuf: ${pb.body}`);
          assert.match(String(pb.headers['content-type']), /protobuf/);
          const { gvk: readerGvk, object: fromPb } = decodeObject(new Uint8Array(pb.raw));
          assert.equal(`${readerGvk.group === '' ? '' : readerGvk.group + '/'}${readerGvk.version}`, reader);
          const expected = decodeObject(encodeObject(seen, { ...groupVersion(reader), kind: c.kind })).object;
          assert.deepEqual(fromPb, expected, `Protobuf answer of ${reader}`);
          // Write the reader's view back through the reader as JSON: the writer's view is exactly what it was.
          const put = await srv.request('PUT', path, seen);
          assert.equal(put.status, 200, `PUT through ${reader} (JSON): ${put.body}`);
          const afterJson = (await srv.request('GET', writerPath)).json<Obj>();
          assert.deepEqual(comparable(afterJson), comparable(before), `${sample.via} view after a JSON write through ${reader}`);
          // And as Protobuf: the same, up to what the Protobuf form itself normalizes (Go's zero values such as
          // `creationTimestamp: null`, which may count as a spec change and bump the generation).
          const seenAgain = (await srv.request('GET', path)).json<Obj>();
          const putPb = await srv.request('PUT', path, encodeObject(seenAgain, { ...groupVersion(reader), kind: c.kind }), { headers: { 'content-type': PROTOBUF } });
          assert.equal(putPb.status, 200, `PUT through ${reader} (Protobuf): ${putPb.body}`);
          const afterPb = (await srv.request('GET', writerPath)).json<Obj>();
          const writerGvk = { ...groupVersion(sample.via), kind: c.kind };
          const normal = (o: Obj): Obj => {
            const x = comparable(decodeObject(encodeObject(o, writerGvk)).object as Obj);
            delete x.metadata['generation'];
            return x;
          };
          assert.deepEqual(normal(afterPb), normal(before), `${sample.via} view after a Protobuf write through ${reader}`);
          before = afterPb;
        }
      }
      // Lists and watches through every version: each item in that version's shape, JSON and Protobuf.
      for (const reader of c.versions) {
        const list = await srv.request('GET', basePath(reader, c.resource, c.namespaced));
        assert.equal(list.status, 200, list.body);
        const items = list.json<{ items: Obj[] }>().items.filter((o) => String(o.metadata['name']).startsWith('rt-'));
        assert.ok(items.length >= c.samples.length);
        for (const item of items) {
          // As the original's typed lists: the list names kind and apiVersion, its items go without them.
          assert.ok(!('apiVersion' in item) && !('kind' in item), `${reader} list item without kind and apiVersion`);
          const one = (await srv.request('GET', `${basePath(reader, c.resource, c.namespaced)}/${String(item.metadata['name'])}`)).json<Obj>();
          assert.equal(one['apiVersion'], reader);
          const { kind: _kind, apiVersion: _apiVersion, ...rest } = one;
          assert.deepEqual(item, rest, `${reader} list item = GET without its kind and apiVersion`);
        }
        const pbList = await srv.request('GET', basePath(reader, c.resource, c.namespaced), undefined, { headers: { accept: PROTOBUF } });
        assert.equal(pbList.status, 200);
        const decoded = decodeObject(new Uint8Array(pbList.raw));
        assert.equal(decoded.gvk.kind, `${c.kind}List`);
        assert.equal(`${decoded.gvk.group === '' ? '' : decoded.gvk.group + '/'}${decoded.gvk.version}`, reader);
        const pbItems = (decoded.object['items'] as Obj[]).filter((o) => String(o.metadata['name']).startsWith('rt-'));
        const expected = items.map((o) => {
          const x = decodeObject(encodeObject(o, { ...groupVersion(reader), kind: c.kind })).object as Obj;
          delete x['apiVersion'];
          delete x['kind'];
          return x;
        });
        assert.deepEqual(pbItems, expected, `${reader} Protobuf list`);
        const w = await srv.watch(`${basePath(reader, c.resource, c.namespaced)}?watch=1&resourceVersion=0`);
        try {
          await w.until(() => w.events.filter((e) => String(e.object.metadata.name).startsWith('rt-')).length >= items.length, 'initial events');
          for (const e of w.events) if (e.type !== 'BOOKMARK') assert.equal(e.object.apiVersion, reader, `${reader} watch`);
        } finally {
          w.close();
        }
      }
    });
  }
});
