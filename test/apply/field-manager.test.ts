/**
 * The FieldManager facade on real kinds (Deployment, Pod, ConfigMap), the
 * way the store and the PATCH handler use it: creates and updates record
 * ownership, apply merges and conflicts with the original's 409, force,
 * shared ownership, removal by omission, `before-first-apply`, the wipe
 * rules of spec 4.8, status tracking on `/status` only, the cap on
 * updaters (the original's capmanagers_test.go cases), and the 400s.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { FieldManager, managerFromUserAgent } from '../../src/apply/field-manager.ts';
import { fromFieldsV1 } from '../../src/apply/fields-v1.ts';
import { pathString } from '../../src/apply/path.ts';
import { keepTimesIfUnchanged } from '../../src/apply/unchanged.ts';
import type { Json } from '../../src/apply/value.ts';
import { StatusError } from '../../src/api/status.ts';
import { servedSchemas } from '../../src/openapi/served-schemas.ts';
import type { KObject, ManagedFieldsEntry } from '../../src/registry/object.ts';

const fm = new FieldManager(servedSchemas([]));
const T0 = new Date('2024-01-01T00:00:00Z');
const T1 = new Date('2024-01-01T00:01:00Z');
const T2 = new Date('2024-01-01T00:02:00Z');

/** What the store adds on create. */
function stored(obj: KObject): KObject {
  return { ...obj, metadata: { ...obj.metadata, uid: 'u-1', resourceVersion: '7', creationTimestamp: '2024-01-01T00:00:00Z' } };
}

function clone<T>(v: T): T {
  return structuredClone(v);
}

/** Entries as `manager operation[ apiVersion][ /subresource]: paths`, in order. */
function owners(obj: KObject): string[] {
  return (obj.metadata.managedFields ?? []).map((e) => {
    const paths = fromFieldsV1(e.fieldsV1 as Json).paths().map(pathString).join(' ');
    return `${e.manager} ${e.operation}${e.subresource ? ` /${e.subresource}` : ''}: ${paths}`;
  });
}

const deployment = (replicas: number, extra: Record<string, Json> = {}): KObject =>
  ({
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'web', namespace: 'default' },
    spec: {
      replicas,
      selector: { matchLabels: { app: 'web' } },
      template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'nginx', image: 'nginx:1' }] } },
      ...extra,
    },
  }) as KObject;

function apply(live: KObject | null, applied: Json, manager: string, opts: { force?: boolean; now?: Date; subresource?: string } = {}): KObject {
  return fm.apply({ live, applied, manager, force: opts.force ?? false, subresource: opts.subresource ?? '', apiVersion: 'apps/v1', kind: 'Deployment', now: opts.now ?? T1 });
}

function statusError(fn: () => unknown): StatusError {
  try {
    fn();
  } catch (err) {
    if (err instanceof StatusError) return err;
    throw err;
  }
  assert.fail('expected a StatusError');
}

describe('create and update record ownership', () => {
  it('a create makes its manager own every field but the server-set ones', () => {
    const created = fm.update({ live: null, next: deployment(1), manager: 'kubectl-create', apiVersion: 'apps/v1', now: T0 });
    assert.deepEqual(created.metadata.managedFields, [
      {
        manager: 'kubectl-create',
        operation: 'Update',
        apiVersion: 'apps/v1',
        time: '2024-01-01T00:00:00Z',
        fieldsType: 'FieldsV1',
        // `spec` exists in the zero Deployment the original compares with; the
        // template's parts do not in ours (see emptyObject), hence their `.`.
        fieldsV1: {
          'f:spec': {
            'f:replicas': {},
            'f:selector': {},
            'f:template': {
              '.': {},
              'f:metadata': { '.': {}, 'f:labels': { '.': {}, 'f:app': {} } },
              'f:spec': { '.': {}, 'f:containers': { '.': {}, 'k:{"name":"nginx"}': { '.': {}, 'f:image': {}, 'f:name': {} } } },
            },
          },
        },
      },
    ]);
  });

  it('an update moves the fields it changes to its manager and never conflicts', () => {
    const live = stored(fm.update({ live: null, next: deployment(1), manager: 'creator', apiVersion: 'apps/v1', now: T0 }));
    const next = clone(live);
    (next['spec'] as { replicas: number }).replicas = 5;
    const updated = fm.update({ live, next, manager: 'hpa', apiVersion: 'apps/v1', now: T1 });
    assert.deepEqual(owners(updated), [
      'creator Update: .spec.selector .spec.template .spec.template.metadata .spec.template.spec .spec.template.metadata.labels .spec.template.metadata.labels.app .spec.template.spec.containers .spec.template.spec.containers[name="nginx"] .spec.template.spec.containers[name="nginx"].image .spec.template.spec.containers[name="nginx"].name',
      'hpa Update: .spec.replicas',
    ]);
    assert.equal(updated.metadata.managedFields![0]!.time, '2024-01-01T00:00:00Z');
    assert.equal(updated.metadata.managedFields![1]!.time, '2024-01-01T00:01:00Z');
  });

  it('a write that changes nothing changes no entry, times included', () => {
    const live = stored(fm.update({ live: null, next: deployment(1), manager: 'creator', apiVersion: 'apps/v1', now: T0 }));
    const again = fm.update({ live, next: clone(live), manager: 'other', apiVersion: 'apps/v1', now: T2 });
    assert.deepEqual(again.metadata.managedFields, live.metadata.managedFields);
  });

  it('a write without managedFields keeps the live ones; so does []', () => {
    const live = stored(fm.update({ live: null, next: deployment(1), manager: 'creator', apiVersion: 'apps/v1', now: T0 }));
    for (const managedFields of [undefined, []]) {
      const next = clone(live);
      if (managedFields === undefined) delete next.metadata.managedFields;
      else next.metadata.managedFields = managedFields;
      (next['spec'] as { replicas: number }).replicas = 2;
      const got = fm.update({ live, next, manager: 'scaler', apiVersion: 'apps/v1', now: T1 });
      assert.deepEqual(owners(got).map((o) => o.split(':')[0]), ['creator Update', 'scaler Update']);
    }
  });

  it('[{}] wipes ownership first; the writer then owns what it changed', () => {
    const live = stored(fm.update({ live: null, next: deployment(1), manager: 'creator', apiVersion: 'apps/v1', now: T0 }));
    const next = clone(live);
    next.metadata.managedFields = [{}];
    (next['spec'] as { replicas: number }).replicas = 3;
    assert.deepEqual(owners(fm.update({ live, next, manager: 'wiper', apiVersion: 'apps/v1', now: T1 })), ['wiper Update: .spec.replicas']);
  });

  it('[{}] alone clears managedFields, and nobody is tracked until someone applies', () => {
    const live = stored(fm.update({ live: null, next: deployment(1), manager: 'creator', apiVersion: 'apps/v1', now: T0 }));
    const next = clone(live);
    next.metadata.managedFields = [{}];
    const wiped = fm.update({ live, next, manager: 'wiper', apiVersion: 'apps/v1', now: T1 });
    assert.equal(wiped.metadata.managedFields, undefined);
    const later = clone(wiped);
    (later['spec'] as { replicas: number }).replicas = 9;
    assert.equal(fm.update({ live: wiped, next: later, manager: 'x', apiVersion: 'apps/v1', now: T2 }).metadata.managedFields, undefined);
  });

  it('a client may replace managedFields with valid entries of its own', () => {
    const live = stored(fm.update({ live: null, next: deployment(1), manager: 'creator', apiVersion: 'apps/v1', now: T0 }));
    const next = clone(live);
    next.metadata.managedFields = [{ manager: 'someone', operation: 'Apply', apiVersion: 'apps/v1', fieldsType: 'FieldsV1', fieldsV1: { 'f:spec': { 'f:replicas': {} } } }];
    assert.deepEqual(owners(fm.update({ live, next, manager: 'editor', apiVersion: 'apps/v1', now: T1 })), ['someone Apply: .spec.replicas']);
  });

  it('writes through a subresource cannot reset or edit managedFields', () => {
    const live = stored(fm.update({ live: null, next: deployment(1), manager: 'creator', apiVersion: 'apps/v1', now: T0 }));
    const next = clone(live);
    next.metadata.managedFields = [{}];
    assert.deepEqual(owners(fm.update({ live, next, manager: 'ctl', subresource: 'status', apiVersion: 'apps/v1', now: T1 })), owners(live));
  });

  it('an updater without a name is "unknown"; the User-Agent gives the usual default', () => {
    const created = fm.update({ live: null, next: deployment(1), manager: '', apiVersion: 'apps/v1', now: T0 });
    assert.equal(created.metadata.managedFields![0]!.manager, 'unknown');
    assert.equal(managerFromUserAgent('kubectl/v1.32.0 (linux/amd64) kubernetes/70d3cc9'), 'kubectl');
    assert.equal(managerFromUserAgent('Go-http-client/2.0'), 'Go-http-client');
    assert.equal(managerFromUserAgent(undefined), '');
  });

  it('corrupt live entries are dropped by an update, kept out of an apply (500)', () => {
    const live = stored(deployment(1));
    live.metadata.managedFields = [{ manager: 'x', operation: 'Bogus' as 'Apply', apiVersion: 'apps/v1', fieldsType: 'FieldsV1', fieldsV1: {} }];
    const next = clone(live);
    delete next.metadata.managedFields;
    assert.equal(fm.update({ live, next, manager: 'u', apiVersion: 'apps/v1' }).metadata.managedFields, undefined);
    const err = statusError(() => apply(live, deployment(1) as unknown as Json, 'a'));
    assert.equal(err.code, 500);
    assert.match(err.message, /^failed to decode managed fields: operation must be `Apply` or `Update`/);
  });
});

describe('apply', () => {
  it('creates: the applier owns what it applied, apiVersion, kind and name aside', () => {
    const created = apply(null, deployment(3) as unknown as Json, 'kubectl', { now: T0 });
    assert.deepEqual(created['spec'], (deployment(3) as Record<string, unknown>)['spec']);
    assert.deepEqual(owners(created), [
      'kubectl Apply: .spec.replicas .spec.selector .spec.template.metadata.labels.app .spec.template.spec.containers[name="nginx"] .spec.template.spec.containers[name="nginx"].image .spec.template.spec.containers[name="nginx"].name',
    ]);
    assert.deepEqual(Object.keys(created.metadata.managedFields![0]!), ['manager', 'operation', 'apiVersion', 'time', 'fieldsType', 'fieldsV1']);
  });

  it('a change to a field another manager owns conflicts (409 with the original message and causes)', () => {
    let live = stored(apply(null, deployment(3) as unknown as Json, 'kubectl', { now: T0 }));
    const next = clone(live);
    (next['spec'] as { replicas: number }).replicas = 5;
    live = fm.update({ live, next, manager: 'kube-controller-manager', apiVersion: 'apps/v1', now: T1 });
    const err = statusError(() => apply(live, deployment(3) as unknown as Json, 'kubectl'));
    assert.equal(err.code, 409);
    assert.equal(err.reason, 'Conflict');
    assert.equal(err.message, 'Apply failed with 1 conflict: conflict with "kube-controller-manager" using apps/v1: .spec.replicas');
    assert.deepEqual(err.details, {
      causes: [{ reason: 'FieldManagerConflict', message: 'conflict with "kube-controller-manager" using apps/v1', field: '.spec.replicas' }],
    });
  });

  it('every conflicting field and manager is reported, grouped by manager', () => {
    let live = stored(apply(null, deployment(3, { paused: false }) as unknown as Json, 'a', { now: T0 }));
    const next = clone(live);
    (next['spec'] as { replicas: number }).replicas = 5;
    live = fm.update({ live, next, manager: 'b', apiVersion: 'apps/v1', now: T1 });
    const err = statusError(() => apply(live, deployment(7, { paused: true }) as unknown as Json, 'c'));
    assert.equal(err.message, 'Apply failed with 2 conflicts: conflicts with "a":\n- .spec.paused\nconflicts with "b" using apps/v1:\n- .spec.replicas');
    assert.deepEqual(
      err.details?.causes?.map((c) => [c.message, c.field]),
      [
        ['conflict with "a"', '.spec.paused'],
        ['conflict with "b" using apps/v1', '.spec.replicas'],
      ],
    );
  });

  it('force takes the fields; the previous owner keeps the rest or disappears', () => {
    let live = stored(apply(null, deployment(3) as unknown as Json, 'kubectl', { now: T0 }));
    const next = clone(live);
    (next['spec'] as { replicas: number }).replicas = 5;
    live = fm.update({ live, next, manager: 'hpa', apiVersion: 'apps/v1', now: T1 });
    const forced = apply(live, { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web' }, spec: { replicas: 8 } }, 'ops', { force: true, now: T2 });
    assert.equal((forced['spec'] as { replicas: number }).replicas, 8);
    assert.deepEqual(owners(forced).map((o) => o.split(':')[0]), ['kubectl Apply', 'ops Apply']);
    assert.ok(!owners(forced)[0]!.includes('.spec.replicas'));
  });

  it('appliers that set the same value share it; a later change by anyone conflicts with both', () => {
    let live = stored(apply(null, deployment(3) as unknown as Json, 'one', { now: T0 }));
    live = stored(apply(live, { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web' }, spec: { replicas: 3 } }, 'two', { now: T1 }));
    assert.ok(owners(live).every((o) => o.includes('.spec.replicas')));
    const err = statusError(() => apply(live, { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web' }, spec: { replicas: 4 } }, 'three'));
    assert.deepEqual(err.details?.causes?.map((c) => c.message), ['conflict with "one"', 'conflict with "two"']);
  });

  it('omitting a field removes it unless someone else owns it (map keys and list items too)', () => {
    const withExtras = (labels: Record<string, string>, env: Json[]): Json => ({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'web', labels },
      spec: { template: { spec: { containers: [{ name: 'nginx', env }] } } },
    });
    let live = stored(apply(null, withExtras({ a: '1', b: '2' }, [{ name: 'X', value: '1' }, { name: 'Y', value: '2' }]), 'one', { now: T0 }));
    live = stored(apply(live, withExtras({ b: '2' }, [{ name: 'Y', value: '2' }]), 'two', { now: T1 }));
    const after = apply(live, withExtras({}, []), 'one', { now: T2 });
    assert.deepEqual(after.metadata.labels, { b: '2' });
    assert.deepEqual(((after['spec'] as any).template.spec.containers[0] as { env: Json }).env, [{ name: 'Y', value: '2' }]);
  });

  it('fields present before the first apply belong to before-first-apply and survive it', () => {
    const live = stored(deployment(2));
    live.metadata.labels = { keep: 'me' };
    const applied = apply(live, { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web', labels: { mine: 'x' } } }, 'newcomer', { now: T1 });
    assert.deepEqual(applied.metadata.labels, { keep: 'me', mine: 'x' });
    assert.deepEqual(owners(applied).map((o) => o.split(':')[0]), ['newcomer Apply', 'before-first-apply Update']);
    assert.ok(owners(applied)[1]!.includes('.metadata.labels.keep'));
  });

  it('an apply that changes nothing returns the live object and keeps times', () => {
    const live = stored(apply(null, deployment(3) as unknown as Json, 'kubectl', { now: T0 }));
    const again = apply(live, deployment(3) as unknown as Json, 'kubectl', { now: T2 });
    assert.deepEqual(again, live);
  });

  it('null members of the merged object are dropped, as the original decodes into Go types', () => {
    const created = apply(null, { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web', creationTimestamp: null }, spec: { paused: null } }, 'k');
    assert.deepEqual(created.metadata, { name: 'web', managedFields: created.metadata.managedFields });
    assert.deepEqual(created['spec'], {});
  });

  it('the result is a copy: changing it leaves the live object and the body alone', () => {
    const live = stored(apply(null, deployment(3) as unknown as Json, 'kubectl', { now: T0 }));
    const body = deployment(4) as unknown as Json;
    const merged = apply(live, body, 'kubectl', { now: T1 });
    (merged['spec'] as any).template.spec.containers[0].image = 'changed';
    assert.equal((live['spec'] as any).template.spec.containers[0].image, 'nginx:1');
    assert.equal((body as any).spec.template.spec.containers[0].image, 'nginx:1');
  });
});

describe('status is tracked on /status only (reset fields)', () => {
  const withStatus = (replicas: number, status: Json): Json => ({ ...(deployment(replicas) as unknown as Record<string, Json>), status });

  it('the main resource does not own status; /status owns nothing else', () => {
    const created = apply(null, withStatus(1, { replicas: 1 }), 'kubectl', { now: T0 });
    assert.ok(!owners(created)[0]!.includes('.status'));
    const live = stored(created);
    const next = clone(live) as KObject;
    next['status'] = { replicas: 1, readyReplicas: 1 };
    next.metadata.labels = { sneaky: 'x' };
    const updated = fm.update({ live, next, manager: 'kube-controller-manager', subresource: 'status', apiVersion: 'apps/v1', now: T1 });
    // Only what changed: replicas kept its value; the label is not status.
    assert.deepEqual(owners(updated).slice(1), ['kube-controller-manager Update /status: .status.readyReplicas']);
  });

  it('apply through /status owns status fields, under its own identity', () => {
    const live = stored(apply(null, deployment(1) as unknown as Json, 'kubectl', { now: T0 }));
    const got = apply(live, withStatus(1, { observedGeneration: 1 }), 'kubectl', { subresource: 'status', now: T1 });
    assert.deepEqual(owners(got).map((o) => o.split(':')[0]), ['kubectl Apply', 'kubectl Apply /status']);
    assert.ok(owners(got)[1]!.endsWith(': .status.observedGeneration'));
  });

  it('types without a status subresource track their status fields (override with statusSubresource)', () => {
    const next = { ...(deployment(1) as unknown as Record<string, Json>), status: { replicas: 1 } } as unknown as KObject;
    const created = fm.update({ live: null, next, manager: 'm', apiVersion: 'apps/v1', statusSubresource: false, now: T0 });
    assert.ok(owners(created)[0]!.includes('.status.replicas'));
  });
});

describe('errors of apply', () => {
  const cases: [string, Json, string, number, string][] = [
    ['managedFields in the body', { ...(deployment(1) as unknown as Record<string, Json>), metadata: { name: 'web', managedFields: [] } }, 'm', 400, 'metadata.managedFields must be nil'],
    ['another kind', { apiVersion: 'apps/v1', kind: 'ReplicaSet', metadata: { name: 'web' } }, 'm', 400, 'invalid object type: apps/v1, Kind=ReplicaSet'],
    ['another version', { apiVersion: 'apps/v1beta1', kind: 'Deployment', metadata: { name: 'web' } }, 'm', 400, 'invalid object type: apps/v1beta1, Kind=Deployment'],
    ['no apiVersion or kind', { metadata: { name: 'web' } }, 'm', 400, 'invalid object type: /, Kind='],
    ['another name', { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'other' } }, 'm', 400, 'the name of the object (other) does not match the name on the URL (web)'],
    ['not an object', [1, 2], 'm', 400, 'error decoding patch: the applied configuration must be an object'],
    [
      'an undeclared field',
      { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web', namespace: 'default' }, spec: { replicaz: 1 } },
      'm',
      400,
      'failed to create typed patch object (default/web; apps/v1, Kind=Deployment): .spec.replicaz: field not declared in schema',
    ],
    ['no field manager', deployment(1) as unknown as Json, '', 422, 'PatchOptions.meta.orch.io "" is invalid: fieldManager: Required value: is required for apply patch'],
  ];
  for (const [name, body, manager, code, message] of cases) {
    it(name, () => {
      const err = statusError(() => fm.apply({ live: stored(deployment(1)), applied: body, manager, apiVersion: 'apps/v1', kind: 'Deployment', name: 'web', namespace: 'default' }));
      assert.equal(err.code, code);
      assert.equal(err.message, message);
    });
  }
});

describe('kinds', () => {
  it('a Pod: container ports are keyed by port and (defaulted) protocol', () => {
    const pod = (ports: Json[]): Json => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: { containers: [{ name: 'c', image: 'i', ports }] } });
    const created = fm.apply({ live: null, applied: pod([{ containerPort: 80 }, { containerPort: 53, protocol: 'UDP' }]), manager: 'm', apiVersion: 'v1', kind: 'Pod', now: T0 });
    // The store defaults the protocol; the key stays the same.
    const live = stored(created);
    ((live['spec'] as any).containers[0].ports[0] as Record<string, Json>)['protocol'] = 'TCP';
    const again = fm.apply({ live, applied: pod([{ containerPort: 80 }]), manager: 'm', apiVersion: 'v1', kind: 'Pod', now: T1 });
    assert.deepEqual((again['spec'] as any).containers[0].ports, [{ containerPort: 80, protocol: 'TCP' }]);
  });

  it('a kind without a declared schema is merged as untyped data', () => {
    const widget = (spec: Json): Json => ({ apiVersion: 'example.io/v1', kind: 'Widget', metadata: { name: 'w' }, spec });
    const created = fm.apply({ live: null, applied: widget({ size: 1, tags: ['a'] }), manager: 'm', apiVersion: 'example.io/v1', kind: 'Widget', now: T0 });
    assert.deepEqual(owners(created), ['m Apply: .spec .spec.size .spec.tags']);
    const live = stored(created);
    const err = statusError(() => fm.apply({ live, applied: widget({ tags: ['b'] }), manager: 'other', apiVersion: 'example.io/v1', kind: 'Widget' }));
    assert.equal(err.message, 'Apply failed with 1 conflict: conflict with "m": .spec.tags');
  });
});

describe('updaters are capped (capmanagers_test.go, with a cap of 3)', () => {
  const capped = new FieldManager(servedSchemas([]), { maxUpdateManagers: 3 });
  const hour = (n: number): string => new Date(Date.UTC(1, 0, 1, n)).toISOString().replace(/^\+?0*1-/, '0001-').replace('.000Z', 'Z');
  const entry = (manager: string, apiVersion: string, order: number, ...fields: string[]): ManagedFieldsEntry => ({
    manager,
    operation: 'Update',
    apiVersion,
    time: hour(order),
    fieldsType: 'FieldsV1',
    fieldsV1: Object.fromEntries(fields.map((f) => [`f:${f}`, {}])),
  });
  const cases: [string, ManagedFieldsEntry[], ManagedFieldsEntry[]][] = [
    [
      'one version, no ancient changes',
      [entry('update-manager1', 'v1', 1, 'a'), entry('update-manager2', 'v1', 2, 'b'), entry('update-manager3', 'v1', 3, 'c'), entry('update-manager4', 'v1', 4, 'd')],
      [entry('ancient-changes', 'v1', 2, 'a', 'b'), entry('update-manager3', 'v1', 3, 'c'), entry('update-manager4', 'v1', 4, 'd')],
    ],
    [
      'one version, one ancient changes',
      [entry('ancient-changes', 'v1', 2, 'a', 'b'), entry('update-manager3', 'v1', 3, 'c'), entry('update-manager4', 'v1', 4, 'd'), entry('update-manager5', 'v1', 5, 'e')],
      [entry('ancient-changes', 'v1', 3, 'a', 'b', 'c'), entry('update-manager4', 'v1', 4, 'd'), entry('update-manager5', 'v1', 5, 'e')],
    ],
    [
      'two versions, no ancient changes',
      [
        entry('update-manager1', 'v1', 1, 'a'),
        entry('update-manager2', 'v2', 2, 'b'),
        entry('update-manager3', 'v1', 3, 'c'),
        entry('update-manager4', 'v1', 4, 'd'),
        entry('update-manager5', 'v1', 5, 'e'),
      ],
      [entry('update-manager2', 'v2', 2, 'b'), entry('ancient-changes', 'v1', 4, 'a', 'c', 'd'), entry('update-manager5', 'v1', 5, 'e')],
    ],
    [
      'three versions, one ancient changes',
      [
        entry('update-manager2', 'v2', 2, 'b'),
        entry('ancient-changes', 'v1', 4, 'a', 'c', 'd'),
        entry('update-manager5', 'v1', 5, 'e'),
        entry('update-manager6', 'v3', 6, 'f'),
        entry('update-manager7', 'v2', 7, 'g'),
      ],
      [entry('ancient-changes', 'v1', 5, 'a', 'c', 'd', 'e'), entry('update-manager6', 'v3', 6, 'f'), entry('ancient-changes', 'v2', 7, 'b', 'g')],
    ],
    [
      'three versions, two ancient changes',
      [entry('ancient-changes', 'v1', 5, 'a', 'c', 'd', 'e'), entry('update-manager6', 'v3', 6, 'f'), entry('ancient-changes', 'v2', 7, 'b', 'g'), entry('update-manager8', 'v3', 8, 'h')],
      [entry('ancient-changes', 'v1', 5, 'a', 'c', 'd', 'e'), entry('ancient-changes', 'v2', 7, 'b', 'g'), entry('ancient-changes', 'v3', 8, 'f', 'h')],
    ],
    [
      'four versions, two ancient changes',
      [entry('ancient-changes', 'v1', 5, 'a', 'c', 'd', 'e'), entry('update-manager6', 'v3', 6, 'f'), entry('ancient-changes', 'v2', 7, 'b', 'g'), entry('update-manager8', 'v4', 8, 'h')],
      [entry('ancient-changes', 'v1', 5, 'a', 'c', 'd', 'e'), entry('update-manager6', 'v3', 6, 'f'), entry('ancient-changes', 'v2', 7, 'b', 'g'), entry('update-manager8', 'v4', 8, 'h')],
    ],
  ];
  for (const [name, input, want] of cases) {
    it(name, () => {
      // A no-op update of an object (no uid: never stored) carrying `input`.
      const obj = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', managedFields: input } } as KObject;
      const got = capped.update({ live: obj, next: clone(obj), manager: 'no-op-update', apiVersion: 'v1' });
      assert.deepEqual(got.metadata.managedFields, want);
      // Idempotent.
      assert.deepEqual(capped.update({ live: got, next: clone(got), manager: 'no-op-update', apiVersion: 'v1' }).metadata.managedFields, want);
    });
  }

  it('merges the oldest entries (TestCapManagersManagerMergesEntries)', () => {
    const podWith = (...labels: string[]): KObject =>
      ({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', labels: Object.fromEntries(labels.map((l) => [l, 'true'])) } }) as KObject;
    let live: KObject | null = null;
    const labels = ['one', 'two', 'three', 'four'];
    labels.forEach((_, i) => {
      const next = podWith(...labels.slice(0, i + 1));
      next.metadata.managedFields = live?.metadata.managedFields;
      live = capped.update({ live, next, manager: `fieldmanager_test_update_${i + 1}`, apiVersion: 'v1', now: new Date(Date.UTC(2024, 0, 1, 0, i)) });
    });
    assert.deepEqual(owners(live!), [
      'ancient-changes Update: .metadata.labels .metadata.labels.one .metadata.labels.two',
      'fieldmanager_test_update_3 Update: .metadata.labels.three',
      'fieldmanager_test_update_4 Update: .metadata.labels.four',
    ]);
  });
});

describe('keepTimesIfUnchanged (the original\'s IgnoreManagedFieldsTimestampsTransformer)', () => {
  const live = stored(fm.update({ live: null, next: deployment(1), manager: 'creator', apiVersion: 'apps/v1', now: T0 }));
  const retimed = (obj: KObject, time: string): KObject => ({ ...obj, metadata: { ...obj.metadata, managedFields: obj.metadata.managedFields!.map((e) => ({ ...e, time })) } });

  it('restores the stored times when only times differ', () => {
    assert.deepEqual(keepTimesIfUnchanged(retimed(live, '2030-01-01T00:00:00Z'), live), live);
  });

  it('restores them when a new time reordered the entries', () => {
    const two = { ...live, metadata: { ...live.metadata, managedFields: [live.metadata.managedFields![0]!, { ...live.metadata.managedFields![0]!, manager: 'second', time: '2024-06-01T00:00:00Z' }] } };
    const bumped = { ...two, metadata: { ...two.metadata, managedFields: [two.metadata.managedFields[1]!, { ...two.metadata.managedFields[0]!, time: '2030-01-01T00:00:00Z' }] } };
    assert.deepEqual(keepTimesIfUnchanged(bumped, two), two);
  });

  it('keeps new times when the object or the ownership changed', () => {
    const changed = retimed(clone(live), '2030-01-01T00:00:00Z');
    (changed['spec'] as { replicas: number }).replicas = 2;
    assert.deepEqual(keepTimesIfUnchanged(changed, live), changed);
    const other = retimed(clone(live), '2030-01-01T00:00:00Z');
    other.metadata.managedFields![0]!.manager = 'someone-else';
    assert.deepEqual(keepTimesIfUnchanged(other, live), other);
  });
});

describe("the original's fieldmanager_test.go", () => {
  const pod = (metadata: Json): Json => ({ apiVersion: 'v1', kind: 'Pod', metadata });
  const applyPod = (live: KObject | null, applied: Json, manager: string, now = T0): KObject =>
    fm.apply({ live, applied, manager, apiVersion: 'v1', kind: 'Pod', now });

  it('TestApplyStripsFields: server-set metadata is nobody\'s', () => {
    const next = {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: {
        name: 'b',
        namespace: 'b',
        uid: 'b',
        generation: 0,
        resourceVersion: 'b',
        creationTimestamp: '2024-01-01T00:00:00Z',
        managedFields: [{ manager: 'update', operation: 'Apply', apiVersion: 'apps/v1' }],
      },
    } as KObject;
    assert.equal(fm.update({ live: null, next, manager: 'fieldmanager_test', apiVersion: 'apps/v1' }).metadata.managedFields, undefined);
  });

  it('TestVersionCheck / TestVersionCheckDoesNotPanic: other versions and empty bodies are 400s', () => {
    const live = stored(apply(null, { apiVersion: 'apps/v1', kind: 'Deployment' }, 'fieldmanager_test'));
    for (const body of [{ apiVersion: 'apps/v1beta1', kind: 'Deployment' }, {}] as Json[]) {
      assert.equal(statusError(() => apply(live, body, 'fieldmanager_test')).code, 400);
    }
  });

  it('TestApplyDoesNotStripLabels', () => {
    const created = applyPod(null, pod({ labels: { a: 'b' } }), 'fieldmanager_test');
    assert.deepEqual(owners(created), ['fieldmanager_test Apply: .metadata.labels.a']);
  });

  it('TestApplyFailsWithManagedFields / TestApplySuccessWithNoManagedFields', () => {
    assert.equal(statusError(() => applyPod(null, pod({ managedFields: [{}] }), 'm')).message, 'metadata.managedFields must be nil');
    assert.deepEqual(owners(applyPod(null, pod({ labels: { a: 'b' } }), 'm')), ['m Apply: .metadata.labels.a']);
  });

  it('TestNoOpChanges: a new applier adds an entry; no-op updates and re-applies change nothing', () => {
    // `creationTimestamp: null`, as kubectl's generated YAML has it, does
    // change the merged object: the store puts the stored value back and then
    // keepTimesIfUnchanged keeps the stored times, as in the original.
    const obj = pod({ name: 'p', labels: { a: 'b' }, creationTimestamp: null });
    const storeApply = (live: KObject, manager: string, now: Date, force = false): KObject => {
      const merged = fm.apply({ live, applied: obj, manager, force, apiVersion: 'v1', kind: 'Pod', now });
      merged.metadata.creationTimestamp = live.metadata.creationTimestamp;
      return keepTimesIfUnchanged(merged, live);
    };
    const first = stored(applyPod(null, obj, 'fieldmanager_test_apply', T0));
    const second = storeApply(first, 'fieldmanager_test_apply_other', T1);
    assert.notDeepEqual(second, first);
    const third = fm.update({ live: second, next: clone(second), manager: 'fieldmanager_test_update', apiVersion: 'v1', now: T2 });
    assert.deepEqual(third, second);
    assert.deepEqual(storeApply(third, 'fieldmanager_test_apply', T2, true), third);
  });

  it('TestLiveObjectManagedFieldsNotRemoved: another applier keeps the first one\'s entry', () => {
    const live = stored(apply(null, deployment(1) as unknown as Json, 'fieldmanager_z', { now: T0 }));
    const got = apply(live, { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web' }, spec: { replicas: 101 } }, 'fieldmanager_b', { force: true, now: T1 });
    assert.deepEqual(owners(got).map((o) => o.split(':')[0]), ['fieldmanager_z Apply', 'fieldmanager_b Apply']);
  });
});
