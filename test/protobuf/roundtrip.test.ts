/**
 * JSON -> protobuf -> JSON for the common kinds. The decoded JSON is what the
 * original prints after decoding into its Go structs, so it may add Go zero
 * values (`status: {}`, `creationTimestamp: null`) but must keep every value
 * the input had; a second round trip must change nothing, byte for byte.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { decodeObject, encodeList, encodeObject, type JsonObject } from '../../src/protobuf/index.ts';
import { CONFIGMAP, CONTROLLER_REVISION, CORE_EVENT, DEPLOYMENT, EVENTS_V1_EVENT, FIXTURES, LEASE, NODE, POD, SECRET, SERVICE, STATUS } from './fixtures.ts';
import { SUPPLEMENT_FIXTURES } from './fixtures-supplement.ts';

/** Every leaf of `want` is at the same path in `got`. */
function assertContains(got: unknown, want: unknown, path = ''): void {
  if (want !== null && typeof want === 'object') {
    assert.ok(got !== null && typeof got === 'object', `${path}: expected an object or array, got ${JSON.stringify(got)}`);
    if (Array.isArray(want)) {
      assert.ok(Array.isArray(got) && got.length === want.length, `${path}: array length`);
      want.forEach((w, i) => assertContains((got as unknown[])[i], w, `${path}[${i}]`));
    } else {
      for (const [k, w] of Object.entries(want)) assertContains((got as JsonObject)[k], w, `${path}.${k}`);
    }
    return;
  }
  assert.deepEqual(got, want, path);
}

/** A value Go would print for a zero field: null, "", 0, false, "0" (a zero quantity), or an object of such. */
function isGoZero(v: unknown): boolean {
  if (v === null || v === '' || v === 0 || v === false || v === '0') return true;
  if (Array.isArray(v)) return v.length === 0;
  if (typeof v === 'object') return Object.values(v as JsonObject).every(isGoZero);
  return false;
}

/** Keys `got` has beyond `want` hold only Go zero values. */
function assertExtrasAreZero(got: unknown, want: unknown, path = ''): void {
  if (got === null || typeof got !== 'object' || want === null || typeof want !== 'object') return;
  if (Array.isArray(got)) {
    got.forEach((g, i) => assertExtrasAreZero(g, (want as unknown[])[i], `${path}[${i}]`));
    return;
  }
  for (const [k, g] of Object.entries(got as JsonObject)) {
    if (!(k in (want as JsonObject))) assert.ok(isGoZero(g), `${path}.${k} added a non-zero value ${JSON.stringify(g)}`);
    else assertExtrasAreZero(g, (want as JsonObject)[k], `${path}.${k}`);
  }
}

for (const fx of [...FIXTURES, ...SUPPLEMENT_FIXTURES]) {
  test(`${fx.name}: JSON -> protobuf -> JSON keeps every value and is stable`, () => {
    const bytes = encodeObject(fx.object, fx.gvk);
    const { gvk, object } = decodeObject(bytes);
    assert.deepEqual(gvk, fx.gvk);
    assertContains(object, fx.object);
    assertExtrasAreZero(object, fx.object);
    const again = encodeObject(object, gvk);
    assert.equal(Buffer.from(again).toString('hex'), Buffer.from(bytes).toString('hex'), 'second encoding differs');
    assert.deepEqual(decodeObject(again).object, object);
  });
}

test('Go zero values the original prints appear after a round trip', () => {
  const { object } = decodeObject(encodeObject({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: { containers: [{ name: 'c', image: 'i' }] } }, { group: '', version: 'v1', kind: 'Pod' }));
  assert.deepEqual(object, {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'p', creationTimestamp: null },
    spec: { containers: [{ name: 'c', image: 'i', resources: {} }] },
    status: {},
  });
  const svc = decodeObject(encodeObject({ apiVersion: 'v1', kind: 'Service', metadata: { name: 's' }, spec: { ports: [{ port: 80 }] } }, { group: '', version: 'v1', kind: 'Service' })).object;
  // ServicePort.targetPort is a value IntOrString: Go prints 0 when unset.
  assert.deepEqual(svc.spec, { ports: [{ port: 80, targetPort: 0 }] });
  assert.deepEqual(svc.status, { loadBalancer: {} });
});

test('pointer fields keep explicit zeros; value fields drop them', () => {
  const { object } = decodeObject(encodeObject(DEPLOYMENT, { group: 'apps', version: 'v1', kind: 'Deployment' }));
  const spec = object.spec as JsonObject;
  assert.equal(spec.replicas, 0, 'replicas is *int32: 0 must survive');
  const status = object.status as JsonObject;
  assert.equal('replicas' in status, false, 'status.replicas is an omitempty int32: 0 is not printed');
  assert.deepEqual((spec.strategy as JsonObject).rollingUpdate, { maxUnavailable: '25%', maxSurge: 1 });
  assert.equal(POD.spec !== undefined && (decodeObject(encodeObject(POD, { group: '', version: 'v1', kind: 'Pod' })).object.spec as JsonObject).automountServiceAccountToken, false);
});

test('Secret data and ConfigMap binaryData travel as bytes and come back as the same base64', () => {
  const secret = decodeObject(encodeObject(SECRET, { group: '', version: 'v1', kind: 'Secret' })).object;
  assert.deepEqual(secret.data, SECRET.data);
  assert.equal(Buffer.from((secret.data as Record<string, string>).password!, 'base64').toString('latin1'), 's3cr3t\u0000\u00ff');
  const cm = decodeObject(encodeObject(CONFIGMAP, { group: '', version: 'v1', kind: 'ConfigMap' })).object;
  assert.deepEqual(cm.binaryData, CONFIGMAP.binaryData);
  assert.deepEqual(cm.data, CONFIGMAP.data);
});

test('times: Time keeps whole seconds in UTC, MicroTime keeps microseconds', () => {
  const cm = decodeObject(
    encodeObject({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', creationTimestamp: '2024-05-01T12:00:00.987+02:00' } }, { group: '', version: 'v1', kind: 'ConfigMap' }),
  ).object;
  assert.equal((cm.metadata as JsonObject).creationTimestamp, '2024-05-01T10:00:00Z');
  const lease = decodeObject(encodeObject(LEASE, { group: 'coordination.orch.io', version: 'v1', kind: 'Lease' })).object;
  assert.equal((lease.spec as JsonObject).renewTime, '2024-05-01T10:00:00.123456Z');
  assert.equal((lease.spec as JsonObject).acquireTime, '2024-05-01T09:00:00.000000Z');
  const ev = decodeObject(encodeObject(EVENTS_V1_EVENT, { group: 'events.orch.io', version: 'v1', kind: 'Event' })).object;
  assert.equal(ev.eventTime, '2024-05-01T10:00:02.654321Z');
  assert.equal((ev.series as JsonObject).lastObservedTime, '2024-05-01T10:05:00.000001Z');
  const core = decodeObject(encodeObject(CORE_EVENT, { group: '', version: 'v1', kind: 'Event' })).object;
  assert.equal(core.eventTime, null, 'a zero MicroTime prints as null');
  assert.equal(core.firstTimestamp, '2024-05-01T10:00:02Z');
});

test('quantities, int-or-string, FieldsV1 and RawExtension keep their JSON forms', () => {
  const node = decodeObject(encodeObject(NODE, { group: '', version: 'v1', kind: 'Node' })).object;
  assert.deepEqual((node.status as JsonObject).capacity, (NODE.status as JsonObject).capacity);
  const pod = decodeObject(encodeObject(POD, { group: '', version: 'v1', kind: 'Pod' })).object;
  const container = ((pod.spec as JsonObject).containers as JsonObject[])[0]!;
  assert.deepEqual((container.livenessProbe as JsonObject).httpGet, { path: '/healthz', port: 'http', scheme: 'HTTP' });
  assert.deepEqual((container.readinessProbe as JsonObject).tcpSocket, { port: 8080 });
  const managed = ((pod.metadata as JsonObject).managedFields as JsonObject[])[0]!;
  assert.deepEqual(managed.fieldsV1, { 'f:metadata': { 'f:labels': { '.': {}, 'f:app': {} } } });
  const svc = decodeObject(encodeObject(SERVICE, { group: '', version: 'v1', kind: 'Service' })).object;
  assert.deepEqual(((svc.spec as JsonObject).ports as JsonObject[]).map((p) => p.targetPort), ['http', 9090]);
  const cr = decodeObject(encodeObject(CONTROLLER_REVISION, { group: 'apps', version: 'v1', kind: 'ControllerRevision' })).object;
  assert.deepEqual(cr.data, CONTROLLER_REVISION.data);
});

test('unknown JSON fields are dropped: protobuf cannot carry them', () => {
  const withExtra = { ...SERVICE, spec: { ...(SERVICE.spec as JsonObject), notAField: 1 }, alsoNot: { x: 1 } };
  const { object } = decodeObject(encodeObject(withExtra, { group: '', version: 'v1', kind: 'Service' }));
  assert.equal('alsoNot' in object, false);
  assert.equal('notAField' in (object.spec as JsonObject), false);
  assert.deepEqual(encodeObject(withExtra, { group: '', version: 'v1', kind: 'Service' }), encodeObject(SERVICE, { group: '', version: 'v1', kind: 'Service' }));
});

test('a list round-trips: list metadata, items without apiVersion/kind', () => {
  const items = [POD, { ...POD, metadata: { ...(POD.metadata as JsonObject), name: 'web-1' } }];
  const bytes = encodeList({ group: '', version: 'v1', kind: 'PodList' }, { resourceVersion: '2000', continue: 'tok', remainingItemCount: 5 }, items);
  assert.deepEqual(Buffer.from(bytes), Buffer.from(encodeList({ group: '', version: 'v1', kind: 'Pod' }, { resourceVersion: '2000', continue: 'tok', remainingItemCount: 5 }, items)), 'item gvk and list gvk give the same bytes');
  const { gvk, object } = decodeObject(bytes);
  assert.deepEqual(gvk, { group: '', version: 'v1', kind: 'PodList' });
  assert.deepEqual(object.metadata, { resourceVersion: '2000', continue: 'tok', remainingItemCount: 5 });
  const got = object.items as JsonObject[];
  assert.equal(got.length, 2);
  for (const [i, item] of got.entries()) {
    assert.equal('kind' in item || 'apiVersion' in item, false);
    const { apiVersion: _a, kind: _k, ...rest } = items[i]!;
    assertContains(item, rest);
  }
  const empty = decodeObject(encodeList({ group: 'apps', version: 'v1', kind: 'DeploymentList' }, { resourceVersion: '1' }, [])).object;
  assert.deepEqual(empty, { apiVersion: 'apps/v1', kind: 'DeploymentList', metadata: { resourceVersion: '1' }, items: [] });
});

test('Status is encodable in any group version, as the original registers it everywhere', () => {
  for (const gvk of [{ group: '', version: 'v1', kind: 'Status' }, { group: 'apps', version: 'v1', kind: 'Status' }]) {
    const { object } = decodeObject(encodeObject({ ...STATUS, apiVersion: gvk.group === '' ? 'v1' : 'apps/v1' }, gvk));
    assert.equal(object.reason, 'NotFound');
    assert.equal(object.code, 404);
    assert.deepEqual(object.details, STATUS.details);
  }
});

test('encoding a value of the wrong type names the field', () => {
  assert.throws(
    () => encodeObject({ metadata: { name: 'p' }, spec: { containers: [{ name: 'c', ports: [{ containerPort: 'eighty' }] }] } }, { group: '', version: 'v1', kind: 'Pod' }),
    /spec\.containers\.ports\.containerPort: expected an integer, got string/,
  );
});
