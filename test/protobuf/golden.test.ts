/**
 * Golden bytes: the exact bytes the original writes for small objects, from
 * two independent sources: a capture of kubectl 1.32's own request body, and
 * a hand-written encoder below that follows generated.proto and gogo's
 * marshalling rules field by field (no code shared with the codec).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { decodeObject, encodeObject, ProtobufDecodeError, ProtobufUnsupportedError } from '../../src/protobuf/index.ts';

const CONFIGMAP = { group: '', version: 'v1', kind: 'ConfigMap' };

/**
 * `kubectl create configmap c --from-literal=a=b -n default` (kubectl 1.32)
 * sends exactly these bytes as its POST body.
 */
const KUBECTL_CONFIGMAP_HEX =
  '6b3873000a0f0a0276311209436f6e6669674d617012220a180a016312001a0764656661756c7422002a0032003800420012060a01611201621a002200';

// ---- a deliberately naive, independent proto2 encoder -------------------------------------
const varint = (n: number): number[] => {
  const out: number[] = [];
  while (n >= 0x80) {
    out.push((n & 0x7f) | 0x80);
    n >>>= 7;
  }
  out.push(n);
  return out;
};
const tag = (field: number, wire: number): number[] => varint((field << 3) | wire);
const str = (field: number, s: string): number[] => {
  const b = [...Buffer.from(s, 'utf8')];
  return [...tag(field, 2), ...varint(b.length), ...b];
};
const bytesField = (field: number, b: number[]): number[] => [...tag(field, 2), ...varint(b.length), ...b];
const msg = (field: number, body: number[]): number[] => bytesField(field, body);
const int = (field: number, n: number): number[] => [...tag(field, 0), ...varint(n)];
const entry = (field: number, k: string, v: number[]): number[] => msg(field, [...str(1, k), ...v]);

/** ObjectMeta as gogo writes it: every value field, in field-number order; pointers only when set. */
function objectMeta(m: { name: string; namespace: string; uid: string; resourceVersion: string; generation: number; created: number; labels: [string, string][] }): number[] {
  return [
    ...str(1, m.name),
    ...str(2, ''), // generateName
    ...str(3, m.namespace),
    ...str(4, ''), // selfLink
    ...str(5, m.uid),
    ...str(6, m.resourceVersion),
    ...int(7, m.generation),
    ...msg(8, [...int(1, m.created), ...int(2, 0)]), // creationTimestamp: Timestamp{seconds, nanos = 0}
    ...m.labels.flatMap(([k, v]) => entry(11, k, str(2, v))),
  ];
}

function envelope(apiVersion: string, kind: string, raw: number[]): Buffer {
  return Buffer.from([0x6b, 0x38, 0x73, 0x00, ...msg(1, [...str(1, apiVersion), ...str(2, kind)]), ...bytesField(2, raw), ...str(3, ''), ...str(4, '')]);
}
// -------------------------------------------------------------------------------------------

test('a ConfigMap encodes to the bytes kubectl 1.32 itself sends', () => {
  const bytes = encodeObject({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', namespace: 'default', creationTimestamp: null }, data: { a: 'b' } }, CONFIGMAP);
  assert.equal(Buffer.from(bytes).toString('hex'), KUBECTL_CONFIGMAP_HEX);
});

test('kubectl\'s ConfigMap bytes decode to the object kubectl meant', () => {
  const { gvk, object } = decodeObject(Buffer.from(KUBECTL_CONFIGMAP_HEX, 'hex'));
  assert.deepEqual(gvk, CONFIGMAP);
  assert.deepEqual(object, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', namespace: 'default', creationTimestamp: null }, data: { a: 'b' } });
});

test('a ConfigMap with labels, data, binaryData and immutable matches the hand-written encoding', () => {
  const obj = {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: {
      name: 'settings',
      namespace: 'team-a',
      uid: '6f1c2d3e-0000-4000-8000-000000000001',
      resourceVersion: '4711',
      creationTimestamp: '2024-05-01T10:00:00Z',
      // Go sorts map keys; the JSON order must not matter.
      labels: { tier: 'web', app: 'shop' },
    },
    immutable: true,
    data: { 'z.conf': 'last=1', 'a.conf': 'first=ü' },
    binaryData: { blob: Buffer.from([0, 1, 2, 255]).toString('base64') },
    unknownField: 'dropped: the wire has no place for it',
  };
  const created = Date.UTC(2024, 4, 1, 10, 0, 0) / 1000;
  const raw = [
    ...msg(1, objectMeta({ name: 'settings', namespace: 'team-a', uid: obj.metadata.uid, resourceVersion: '4711', generation: 0, created, labels: [['app', 'shop'], ['tier', 'web']] })),
    ...entry(2, 'a.conf', str(2, 'first=ü')),
    ...entry(2, 'z.conf', str(2, 'last=1')),
    ...entry(3, 'blob', bytesField(2, [0, 1, 2, 255])),
    ...int(4, 1), // immutable: *bool, set
  ];
  const expected = envelope('v1', 'ConfigMap', raw);
  assert.equal(Buffer.from(encodeObject(obj, CONFIGMAP)).toString('hex'), expected.toString('hex'));
});

test('IntOrString, Quantity and a negative int32 follow the original\'s encodings', () => {
  const svc = {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name: 's' },
    spec: { ports: [{ port: 80, targetPort: 'http' }, { port: 81, targetPort: 8081 }] },
  };
  const bytes = Buffer.from(encodeObject(svc, { group: '', version: 'v1', kind: 'Service' }));
  // ServicePort.targetPort = 4: IntOrString{type = 1, intVal = 0, strVal = "http"} / {type = 0, intVal = 8081, strVal = ""}.
  assert.ok(bytes.includes(Buffer.from([...msg(4, [...int(1, 1), ...int(2, 0), ...str(3, 'http')])])));
  assert.ok(bytes.includes(Buffer.from([...msg(4, [...int(1, 0), ...int(2, 8081), ...str(3, '')])])));

  const quota = { apiVersion: 'v1', kind: 'ResourceQuota', metadata: { name: 'q' }, spec: { hard: { cpu: '500m' } } };
  const qb = Buffer.from(encodeObject(quota, { group: '', version: 'v1', kind: 'ResourceQuota' }));
  // hard = 1: map<string, Quantity>, Quantity{string = 1}.
  assert.ok(qb.includes(Buffer.from(entry(1, 'cpu', msg(2, str(1, '500m'))))));

  const pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: { containers: [], priority: -5 } };
  const pb = Buffer.from(encodeObject(pod, { group: '', version: 'v1', kind: 'Pod' }));
  // PodSpec.priority = 25 (*int32): a negative value is ten bytes, as Go's uint64(int32) is.
  assert.ok(pb.includes(Buffer.from([...tag(25, 0), 0xfb, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01])));
  assert.equal((decodeObject(pb).object.spec as { priority: number }).priority, -5);
});

test('a wrong or missing prefix is rejected with a 400-worthy error', () => {
  const good = Buffer.from(KUBECTL_CONFIGMAP_HEX, 'hex');
  const cases: [string, Uint8Array][] = [
    ['JSON', Buffer.from('{"kind":"ConfigMap"}')],
    ['wrong magic', Buffer.concat([Buffer.from([0x6b, 0x38, 0x73, 0x01]), good.subarray(4)])],
    ['bare Unknown without prefix', good.subarray(4)],
    ['empty', new Uint8Array(0)],
    ['prefix only', good.subarray(0, 4)],
    ['truncated', good.subarray(0, good.length - 10)],
  ];
  for (const [name, bytes] of cases) {
    assert.throws(
      () => decodeObject(bytes),
      (err: unknown) => err instanceof ProtobufDecodeError && err.status === 400 && /protobuf/.test(err.message),
      name,
    );
  }
  assert.throws(() => decodeObject(new Uint8Array(3)), /does not start with the protobuf prefix/);
});

test('a kind with no protobuf form is refused, on encode and on decode', () => {
  const crd = { group: 'stable.example.com', version: 'v1', kind: 'CronTab' };
  assert.throws(() => encodeObject({ metadata: { name: 'x' } }, crd), ProtobufUnsupportedError);
  const alien = envelope('stable.example.com/v1', 'CronTab', msg(1, str(1, 'x')));
  assert.throws(() => decodeObject(alien), ProtobufUnsupportedError);
});

test('map entries follow Go\'s byte order, also for keys beyond the BMP', () => {
  // UTF-8 (Go) order: U+FF21 (ef bc a1) before U+1F600 (f0 9f 98 80); UTF-16 order would swap them.
  const obj = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'k' }, data: { '\u{1F600}': '1', '\uFF21': '2', b: '3' } };
  const bytes = Buffer.from(encodeObject(obj, CONFIGMAP));
  const entries = Buffer.from([...entry(2, 'b', str(2, '3')), ...entry(2, '\uFF21', str(2, '2')), ...entry(2, '\u{1F600}', str(2, '1'))]);
  assert.ok(bytes.includes(entries), 'entries in Go order');
});

test('a time without a zone is refused rather than read as local time', () => {
  assert.throws(() => encodeObject({ metadata: { name: 'x', creationTimestamp: '2024-05-01T10:00:00.5' } }, CONFIGMAP), /creationTimestamp: expected an RFC 3339 time/);
  assert.throws(() => encodeObject({ metadata: { name: 'x', creationTimestamp: 'yesterday' } }, CONFIGMAP), /RFC 3339/);
});
