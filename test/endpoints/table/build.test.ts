/** Table assembly: the default table, includeObject, list metadata, group/version, watch events, PartialObjectMetadata, speed. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  objectTable,
  partialMetadataMismatch,
  partialObjectMetadataList,
  tableWatchEncoder,
  toTable,
  type JsonObject,
} from '../../../src/endpoints/table/index.ts';
import { NOW, POD, ago, kindOf, object, tableOf } from './helpers.ts';

const CLUSTER_ROLE = kindOf('rbac.authorization.orch.io', 'v1', 'ClusterRole', 'clusterroles');
const WIDGET = kindOf('example.com', 'v1', 'Pod', 'widgets');
const CONFIG_MAP = kindOf('', 'v1', 'ConfigMap', 'configmaps');

describe('default table (spec 2.3)', () => {
  it('shows Name and Created At for kinds without their own columns', () => {
    const t = tableOf(CLUSTER_ROLE, [object('admin', 3600, { rules: [] }), { metadata: { name: 'bare' } }]);
    assert.deepEqual(
      t.columnDefinitions.map((c) => [c.name, c.type, c.format, c.priority]),
      [
        ['Name', 'string', 'name', 0],
        ['Created At', 'date', '', 0],
      ],
    );
    assert.deepEqual(t.rows.map((r) => r.cells), [['admin', ago(3600)], ['bare', '0001-01-01T00:00:00Z']]);
  });

  it('normalises Created At to RFC 3339 seconds in UTC', () => {
    const t = tableOf(CLUSTER_ROLE, [{ metadata: { name: 'x', creationTimestamp: '2025-06-01T13:30:05.900+01:30' } }]);
    assert.equal(t.rows[0]!.cells[1], '2025-06-01T12:00:05Z');
  });

  it('uses the default table for a kind name reused in another group', () => {
    assert.equal(tableOf(WIDGET, []).columnDefinitions[1]!.name, 'Created At');
  });
});

describe('table envelope', () => {
  const pods = [object('a', 60, { spec: { containers: [{ name: 'c' }] } }, { uid: 'u-a', resourceVersion: '7', labels: { app: 'a' }, managedFields: [{ manager: 'm' }] })];

  it('answers in the group and version the client asked for', () => {
    for (const [group, version] of [['meta.k8s.io', 'v1'], ['meta.k8s.io', 'v1beta1'], ['meta.orch.io', 'v1'], ['meta.orch.io', 'v1beta1']] as const) {
      const t = tableOf(POD, pods, { tableGroup: group, tableVersion: version });
      assert.equal(t.kind, 'Table');
      assert.equal(t.apiVersion, `${group}/${version}`);
      assert.equal((t.rows[0]!.object as { apiVersion: string }).apiVersion, `${group}/${version}`);
    }
  });

  it('writes fields in the original order and carries the list metadata', () => {
    const t = toTable(POD, pods, { resourceVersion: '42', continue: 'tok', remainingItemCount: 5 }, { includeObject: 'None', tableGroup: 'meta.k8s.io', tableVersion: 'v1', now: NOW });
    assert.deepEqual(Object.keys(t), ['kind', 'apiVersion', 'metadata', 'columnDefinitions', 'rows']);
    assert.deepEqual(t.metadata, { resourceVersion: '42', continue: 'tok', remainingItemCount: 5 });
    assert.deepEqual(Object.keys(t.columnDefinitions[0]!), ['name', 'type', 'format', 'description', 'priority']);
    assert.deepEqual(Object.keys(t.rows[0]!), ['cells', 'object']);
    const end = toTable(POD, [], { resourceVersion: '42', continue: '' }, { includeObject: 'None', tableGroup: 'meta.k8s.io', tableVersion: 'v1', now: NOW });
    assert.deepEqual(end.metadata, { resourceVersion: '42' });
    assert.deepEqual(end.rows, []);
  });

  it('fills row objects per includeObject', () => {
    const metadata = tableOf(POD, pods, { includeObject: 'Metadata' }).rows[0]!.object;
    assert.deepEqual(metadata, { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: pods[0]!['metadata'] });
    assert.equal(tableOf(POD, pods, { includeObject: 'None' }).rows[0]!.object, null);
    const full = tableOf(POD, pods, { includeObject: 'Object' }).rows[0]!.object as JsonObject;
    assert.equal(full['kind'], 'Pod');
    assert.equal(full['apiVersion'], 'v1');
    assert.deepEqual(full['spec'], pods[0]!['spec']);
    assert.equal('kind' in pods[0]!, false, 'the input object is not modified');
    const typed = { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'd' } };
    assert.equal(tableOf(kindOf('apps', 'v1', 'Deployment', 'deployments'), [typed], { includeObject: 'Object' }).rows[0]!.object, typed);
  });

  it('shows the end-of-initial-events bookmark as metadata even with includeObject=Object', () => {
    const marker = { metadata: { resourceVersion: '9', annotations: { 'orch.io/initial-events-end': 'true' } } };
    assert.equal((tableOf(POD, [marker], { includeObject: 'Object' }).rows[0]!.object as JsonObject)['kind'], 'PartialObjectMetadata');
  });

  it('builds a single-object table with the object resourceVersion', () => {
    const t = objectTable(POD, pods[0]!, { includeObject: 'Metadata', tableGroup: 'meta.orch.io', tableVersion: 'v1', now: NOW });
    assert.deepEqual(t.metadata, { resourceVersion: '7' });
    assert.equal(t.rows.length, 1);
  });

  it('leaves out column definitions when asked (noHeaders)', () => {
    assert.deepEqual(tableOf(POD, pods, { noHeaders: true }).columnDefinitions, []);
  });
});

describe('watch events as tables', () => {
  it('sends column definitions with the first event only and passes Status through', () => {
    const encode = tableWatchEncoder(POD, { includeObject: 'Metadata', tableGroup: 'meta.k8s.io', tableVersion: 'v1', now: () => NOW });
    const first = encode(object('a', 60, {}, { resourceVersion: '10' })) as { columnDefinitions: unknown[]; rows: { cells: unknown[] }[]; metadata: unknown };
    const second = encode(object('b', 30, {}, { resourceVersion: '11' })) as { columnDefinitions: unknown[]; rows: { cells: unknown[] }[]; metadata: unknown };
    assert.equal(first.columnDefinitions.length, 9);
    assert.deepEqual(second.columnDefinitions, []);
    assert.deepEqual(second.rows[0]!.cells.slice(0, 2), ['b', '0/0']);
    assert.deepEqual(second.metadata, { resourceVersion: '11' });
    const status = { kind: 'Status', apiVersion: 'v1', status: 'Failure', code: 410, reason: 'Expired', message: 'too old' };
    assert.equal(encode(status), status);
  });
});

describe('PartialObjectMetadata', () => {
  it('builds lists in the asked group version', () => {
    const items = [object('a', 1, {}, { uid: 'ua' }), object('b', 1, {}, { uid: 'ub' })];
    const list = partialObjectMetadataList(items, { resourceVersion: '5', continue: 'c' }, 'meta.k8s.io', 'v1');
    assert.equal(list.kind, 'PartialObjectMetadataList');
    assert.equal(list.apiVersion, 'meta.k8s.io/v1');
    assert.deepEqual(list.metadata, { resourceVersion: '5', continue: 'c' });
    assert.deepEqual(list.items.map((i) => [i.kind, i.apiVersion, i.metadata['uid']]), [
      ['PartialObjectMetadata', 'meta.k8s.io/v1', 'ua'],
      ['PartialObjectMetadata', 'meta.k8s.io/v1', 'ub'],
    ]);
  });

  it('refuses a list asked as one object and the reverse with 406', () => {
    assert.equal(partialMetadataMismatch(true, true, 'PodList'), undefined);
    const err = partialMetadataMismatch(false, true, 'PodList');
    assert.equal(err?.code, 406);
    assert.equal(err?.message, 'you requested PartialObjectMetadata, but the requested object is a list (PodList)');
    assert.equal(partialMetadataMismatch(true, false, 'Pod')?.message, 'you requested PartialObjectMetadataList, but the requested object is not a list (Pod)');
  });
});

describe('a large list', () => {
  it('tables 50,000 config maps, one row each', () => {
    const items: JsonObject[] = [];
    for (let i = 0; i < 50_000; i++) {
      items.push({
        metadata: {
          name: `cm-${i}`,
          namespace: `ns-${i % 50}`,
          uid: `00000000-0000-0000-0000-${String(i).padStart(12, '0')}`,
          resourceVersion: String(1000 + i),
          creationTimestamp: ago(i % 7200),
          labels: { app: 'bulk', shard: String(i % 16) },
          managedFields: [{ manager: 'kubectl', operation: 'Update', apiVersion: 'v1', time: ago(1), fieldsType: 'FieldsV1', fieldsV1: { 'f:data': { 'f:a': {} } } }],
        },
        data: { a: 'x'.repeat(20), b: 'y' },
      });
    }
    const opts = { includeObject: 'Metadata', tableGroup: 'meta.k8s.io', tableVersion: 'v1', now: NOW } as const;
    toTable(CONFIG_MAP, items.slice(0, 1000), { resourceVersion: '1' }, opts); // warm up the JIT
    // Speed is a benchmark's business (loadtest/), not a timed test's: here only that all rows come out.
    const rows = toTable(CONFIG_MAP, items, { resourceVersion: '1' }, opts).rows.length;
    assert.equal(rows, 50_000);
  });
});
