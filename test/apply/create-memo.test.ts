/**
 * FieldManager remembers the managedFields of creates (field-manager.ts,
 * #createKey): over many creates of objects of a few shapes, with names,
 * uids, labels, containers and values drawn at random, every answer equals
 * what a FieldManager that never saw an earlier create records, each carries
 * its own time, and no two answers share an entry object.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { FieldManager, shapeOf } from '../../src/apply/field-manager.ts';
import { servedSchemas } from '../../src/openapi/served-schemas.ts';
import { DEDUCED, mapType } from '../../src/apply/schema.ts';
import type { KObject } from '../../src/registry/object.ts';
import { seededRandom } from '../support/seeded-random.ts';

const schemas = servedSchemas([]);

interface Case {
  readonly obj: KObject;
  readonly apiVersion: string;
  readonly kind: string;
  readonly statusSubresource: boolean;
}

function randomCase(r: () => number, i: number): Case {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;
  const maybe = (p: number): boolean => r() < p;
  const metadata: Record<string, unknown> = { name: `n-${i}`, namespace: pick(['a', 'b']), uid: `u-${i}`, creationTimestamp: '2024-01-01T00:00:00Z' };
  if (maybe(0.3)) metadata['generateName'] = 'g-';
  if (maybe(0.5)) metadata['labels'] = Object.fromEntries(Array.from({ length: Math.floor(r() * 3) }, () => [pick(['app', 'tier', 'zone']), pick(['x', 'y'])]));
  if (maybe(0.2)) metadata['annotations'] = { note: pick(['1', '2']) };
  const kind = pick(['ConfigMap', 'Pod', 'Deployment'] as const);
  if (kind === 'ConfigMap') {
    const data = Object.fromEntries(Array.from({ length: 1 + Math.floor(r() * 3) }, () => [pick(['v', 'w', 'k']), 'x'.repeat(pick([0, 5, 40]))]));
    return { apiVersion: 'v1', kind, statusSubresource: false, obj: { apiVersion: 'v1', kind, metadata, data } as KObject };
  }
  const containers = Array.from({ length: 1 + Math.floor(r() * 2) }, (_, c) => ({
    name: pick(['app', 'side']) + (maybe(0.3) ? String(c) : ''),
    image: pick(['nginx', 'busybox']),
    ...(maybe(0.5) ? { ports: [{ containerPort: pick([80, 443]), protocol: 'TCP' }] } : {}),
    ...(maybe(0.3) ? { env: [{ name: pick(['A', 'B']), value: pick(['1', '2']) }] } : {}),
  }));
  const podSpec = { containers, ...(maybe(0.3) ? { restartPolicy: 'Always' } : {}) };
  if (kind === 'Pod') return { apiVersion: 'v1', kind, statusSubresource: true, obj: { apiVersion: 'v1', kind, metadata, spec: podSpec, ...(maybe(0.2) ? { status: { phase: 'Pending' } } : {}) } as KObject };
  return {
    apiVersion: 'apps/v1',
    kind,
    statusSubresource: true,
    obj: { apiVersion: 'apps/v1', kind, metadata, spec: { replicas: pick([1, 2]), selector: { matchLabels: { app: 'x' } }, template: { metadata: { labels: { app: 'x' } }, spec: podSpec } } } as KObject,
  };
}

describe('FieldManager: creates remembered', () => {
  it('records for 400 random creates what a FieldManager that saw no earlier create records', () => {
    const r = seededRandom(20261129);
    const remembering = new FieldManager(schemas);
    const now = new Date('2024-01-01T00:00:00Z');
    // How many creates repeat an earlier one's shape (what the memo answers): the test must exercise both paths.
    const shapes = new Set<string>();
    let repeats = 0;
    // Objects of 40 shapes, each created again and again under other names, and some of shapes of their own.
    const templates = Array.from({ length: 40 }, (_, t) => randomCase(r, t));
    for (let i = 0; i < 400; i++) {
      const base = r() < 0.8 ? templates[Math.floor(r() * templates.length)]! : randomCase(r, i);
      const c: Case = { ...base, obj: { ...base.obj, metadata: { ...base.obj.metadata, name: `n-${i}`, uid: `u-${i}` } } as KObject };
      const manager = i % 7 === 0 ? 'kubectl' : 'h2load';
      const shape = `${manager} ${shapeOf(c.obj)}`;
      if (shapes.has(shape)) repeats++;
      shapes.add(shape);
      const req = { live: null, next: structuredClone(c.obj), manager, subresource: '', apiVersion: c.apiVersion, kind: c.kind, statusSubresource: c.statusSubresource, now };
      const got = remembering.update(req);
      const want = new FieldManager(schemas).update({ ...req, next: structuredClone(c.obj) });
      assert.deepEqual(got, want, `create ${i}: ${JSON.stringify(c.obj)}`);
    }
    assert.ok(repeats > 100 && shapes.size > 50, `${repeats} repeated shapes, ${shapes.size} distinct`);
  });

  it('gives each create its own time and its own entries', () => {
    const fm = new FieldManager(schemas);
    const obj = (name: string): KObject => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'a' }, data: { v: 'x' } }) as KObject;
    const create = (name: string, now: Date): KObject => fm.update({ live: null, next: obj(name), manager: 'h2load', subresource: '', apiVersion: 'v1', kind: 'ConfigMap', statusSubresource: false, now });
    const first = create('one', new Date('2024-01-01T00:00:00Z'));
    const second = create('two', new Date('2024-01-01T00:05:07Z'));
    assert.equal(first.metadata.managedFields?.[0]?.time, '2024-01-01T00:00:00Z');
    assert.equal(second.metadata.managedFields?.[0]?.time, '2024-01-01T00:05:07Z');
    assert.deepEqual(second.metadata.managedFields?.[0]?.fieldsV1, { 'f:data': { '.': {}, 'f:v': {} } });
    assert.notEqual(second.metadata.managedFields?.[0], first.metadata.managedFields?.[0]);
    first.metadata.managedFields![0]!.time = 'changed';
    assert.throws(() => {
      (second.metadata.managedFields![0]!.fieldsV1 as Record<string, unknown>)['f:data'] = {};
    }, TypeError, 'the shared field sets are frozen: changing one throws rather than changing other objects');
    assert.deepEqual(create('three', new Date('2024-01-01T00:06:00Z')).metadata.managedFields?.[0], {
      manager: 'h2load',
      operation: 'Update',
      apiVersion: 'v1',
      time: '2024-01-01T00:06:00Z',
      fieldsType: 'FieldsV1',
      fieldsV1: { 'f:data': { '.': {}, 'f:v': {} } },
    }, 'a caller changing its entry changes no later create');
    // Another manager, another shape: its own entries.
    const other = fm.update({ live: null, next: obj('four'), manager: 'kubectl', subresource: '', apiVersion: 'v1', kind: 'ConfigMap', statusSubresource: false, now: new Date('2024-01-01T00:07:00Z') });
    assert.equal(other.metadata.managedFields?.[0]?.manager, 'kubectl');
    const labeled = fm.update({ live: null, next: { ...obj('five'), metadata: { name: 'five', labels: { a: 'b' } } } as KObject, manager: 'h2load', subresource: '', apiVersion: 'v1', kind: 'ConfigMap', statusSubresource: false, now: new Date('2024-01-01T00:08:00Z') });
    assert.deepEqual(labeled.metadata.managedFields?.[0]?.fieldsV1, { 'f:data': { '.': {}, 'f:v': {} }, 'f:metadata': { 'f:labels': { '.': {}, 'f:a': {} } } });
  });

  it('compares a create with the last of its kind and manager by shape: every near miss gets its own entries', () => {
    const remembering = new FieldManager(schemas);
    const now = new Date('2024-01-01T00:00:00Z');
    const cm = (metadata: Record<string, unknown>, rest: Record<string, unknown>): KObject => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata, ...rest }) as KObject;
    // Each next to the one before: the same shape again, or one that differs in a single place.
    const sequence: KObject[] = [
      cm({ generateName: 'h-' }, { data: { v: 'x' } }),
      cm({ generateName: 'h-' }, { data: { v: 'yyyy' } }),
      cm({ generateName: 'h-' }, { data: { w: 'x' } }),
      cm({ generateName: 'h-' }, { data: { v: 'x', w: 'x' } }),
      cm({ generateName: 'h-' }, { data: { w: 'x', v: 'x' } }),
      cm({ generateName: 'h-' }, { data: { v: 1 } }),
      cm({ generateName: 'h-' }, { data: { v: null } }),
      cm({ generateName: 'h-' }, { data: {} }),
      cm({ generateName: 'h-' }, { data: [] }),
      cm({ generateName: 'h-', finalizers: ['a'] }, { data: { v: 'x' } }),
      cm({ generateName: 'h-', finalizers: ['b'] }, { data: { v: 'x' } }),
      cm({ generateName: 'h-', finalizers: ['b'] }, { data: { v: 'x' } }),
      cm({ name: 'h-' }, { data: { v: 'x' } }),
      cm({ name: 'h-', labels: { a: 'b' } }, { data: { v: 'x' } }),
      cm({ name: 'h-', labels: { a: 'b' } }, { data: { v: 'x' }, immutable: true }),
      cm({ name: 'h-', labels: { a: 'b' } }, { data: { v: 'x' }, immutable: 'true' }),
      cm({ name: 'h-', labels: { a: 'b' } }, { data: { v: 'x' } }),
    ];
    // Each also with a status, which a type with a status subresource leaves to that (the same shape, other entries).
    for (const [i, obj] of [...sequence, ...sequence.map((o) => ({ ...o, status: { phase: 'x' } }) as KObject)].entries()) {
      for (const [manager, statusSubresource] of [['h2load', false], ['h2load', false], ['kubectl', false], ['h2load', true], ['h2load', undefined], ['h2load', true]] as const) {
        const withStatus = obj;
        const req = { live: null, next: structuredClone(withStatus), manager, subresource: '', apiVersion: 'v1', kind: 'ConfigMap', statusSubresource, now };
        const got = remembering.update(req);
        const want = new FieldManager(schemas).update({ ...req, next: structuredClone(withStatus) });
        assert.deepEqual(got.metadata.managedFields, want.metadata.managedFields, `create ${i} by ${manager} (status ${statusSubresource}): ${JSON.stringify(withStatus)}`);
      }
    }
  });

  it('keys a shape by map keys, value kinds and whole lists, never confusing two', () => {
    assert.equal(shapeOf({ data: { v: 'x'.repeat(1000) } }), shapeOf({ data: { v: '' } }), 'a scalar\'s value in a map does not matter');
    assert.notEqual(shapeOf({ data: { v: 'x' } }), shapeOf({ data: { v: 1 } }), 'its kind does');
    assert.notEqual(shapeOf({ a: null }), shapeOf({}), 'null is a value, absent is not');
    assert.equal(shapeOf({ a: undefined }), shapeOf({}));
    assert.notEqual(shapeOf({ l: ['a'] }), shapeOf({ l: ['b'] }), 'list items are values (set members, item keys)');
    assert.notEqual(shapeOf({ 'a":s,"b': 's' }), shapeOf({ a: 's', b: 's' }), 'keys are quoted');
    assert.notEqual(shapeOf({ a: {} }), shapeOf({ a: [] }));
    assert.notEqual(shapeOf({ a: 's' }), shapeOf({ a: { } }));
    assert.equal(shapeOf({ a: { b: 's' } }, 100), '{"a":{"b":s,},}');
    const wide = Object.fromEntries(Array.from({ length: 10_000 }, (_, i) => [`k${i}`, 's']));
    assert.equal(shapeOf({ data: wide }, 1_000), undefined, 'past its bound it stops: a large object is not remembered');
  });

  it('records large objects and custom kinds as always, without remembering them', () => {
    const fm = new FieldManager(schemas);
    const big = (name: string): KObject => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: Object.fromEntries(Array.from({ length: 2_000 }, (_, i) => [`k${i}`, 'v'])) }) as KObject;
    for (const name of ['one', 'two']) {
      const got = fm.update({ live: null, next: big(name), manager: 'm', subresource: '', apiVersion: 'v1', kind: 'ConfigMap', statusSubresource: false, now: new Date('2024-01-01T00:00:00Z') });
      assert.equal(Object.keys((got.metadata.managedFields![0]!.fieldsV1 as Record<string, Record<string, unknown>>)['f:data']!).length, 2_001);
    }
    // A custom kind's schema may change between two creates of one shape: each is compared under its schema.
    const widget = (name: string): KObject => ({ apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name }, spec: { size: 1, color: 'red' } }) as KObject;
    const create = (name: string): KObject => fm.update({ live: null, next: widget(name), manager: 'm', subresource: '', apiVersion: 'example.com/v1', kind: 'Widget', statusSubresource: false, now: new Date('2024-01-01T00:00:00Z') });
    fm.customType = () => DEDUCED;
    assert.deepEqual(create('a').metadata.managedFields?.[0]?.fieldsV1, { 'f:spec': { '.': {}, 'f:color': {}, 'f:size': {} } });
    assert.deepEqual(create('b').metadata.managedFields?.[0]?.fieldsV1, { 'f:spec': { '.': {}, 'f:color': {}, 'f:size': {} } });
    // Now its spec is one atomic value.
    fm.customType = () => mapType({ element: DEDUCED, fields: (f) => (f === 'spec' ? mapType({ atomic: true, element: DEDUCED }) : f === 'metadata' ? DEDUCED : undefined) });
    assert.deepEqual(create('c').metadata.managedFields?.[0]?.fieldsV1, { 'f:spec': {} });
  });
});
