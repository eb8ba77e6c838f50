/**
 * Checks on the declaration source itself (what the documents, server-side
 * apply and Protobuf will all read): every type and field is described,
 * proto numbers are unique per message, and merge keys name scalar fields of
 * the list items.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { f, list, namespace, OPAQUE, S, type StructDecl, type TypeExpr } from '../../src/openapi/schema-dsl.ts';
import { SchemaSet } from '../../src/openapi/schema-set.ts';
import { ALL_TYPES } from '../../src/openapi/types/index.ts';

const set = new SchemaSet(ALL_TYPES);

function itemStruct(t: TypeExpr): string | undefined {
  return t.kind === 'array' && t.items.kind === 'ref' ? t.items.name : undefined;
}

describe('declared types', () => {
  it('are many, and each type and field has a one-line description', () => {
    assert.ok(set.size > 250, `${set.size} types`);
    for (const d of ALL_TYPES) {
      assert.ok(d.description.length > 0 && !d.description.includes('\n'), d.name);
      for (const [name, fd] of Object.entries(d.fields)) {
        assert.ok(fd.description.length > 0 && !fd.description.includes('\n'), `${d.name}.${name}`);
      }
    }
  });

  it('use each proto field number at most once per message, embeds included', () => {
    for (const d of ALL_TYPES) {
      const numbers = [...Object.values(d.fields).map((fd) => fd.proto), ...(d.embeds ?? []).map((e) => e.proto)].filter((n) => n !== undefined);
      assert.equal(new Set(numbers).size, numbers.length, d.name);
    }
  });

  it('key map lists by scalar fields that the items have', () => {
    let checked = 0;
    for (const d of ALL_TYPES) {
      for (const [name, fd] of Object.entries(d.fields)) {
        const item = itemStruct(fd.type);
        const keys = [...(fd.listMapKeys ?? []), ...(fd.patchMergeKey !== undefined ? [fd.patchMergeKey] : [])];
        if (keys.length === 0 || item === undefined) continue;
        const fields = set.fields(item);
        for (const k of keys) {
          const key = fields[k];
          assert.ok(key, `${d.name}.${name}: key ${k} missing in ${item}`);
          assert.equal(key.type.kind, 'scalar', `${d.name}.${name}: key ${k} is not a scalar`);
        }
        checked++;
      }
    }
    assert.ok(checked > 30, `${checked} keyed lists`);
  });

  it('flatten embedded structs into their hosts (Probe carries the handler fields)', () => {
    const probe = set.fields('io.orch.api.core.v1.Probe');
    for (const k of ['exec', 'httpGet', 'tcpSocket', 'grpc', 'periodSeconds']) assert.ok(probe[k], k);
    const vol = set.fields('io.orch.api.core.v1.Volume');
    for (const k of ['name', 'configMap', 'secret', 'emptyDir', 'hostPath', 'persistentVolumeClaim', 'projected', 'downwardAPI']) assert.ok(vol[k], k);
  });
});

describe('SchemaSet', () => {
  const ns = namespace('io.example.v1', { group: 'example.io', version: 'v1' });
  it('rejects references to undeclared types', () => {
    assert.throws(() => new SchemaSet([ns.struct('A', 'a', { b: f(ns.ref('B'), 'b') })]), /unknown io\.example\.v1\.B/);
  });
  it('rejects duplicate names and duplicate kinds', () => {
    const a: StructDecl = ns.struct('A', 'a', {});
    assert.throws(() => new SchemaSet([a, a]), /declared twice/);
    assert.throws(() => new SchemaSet([ns.kind('K', 'k', {}), { ...ns.kind('K', 'k', {}), name: 'other' }]), /kind .* declared twice/);
  });
  it('rejects list map keys without listType map', () => {
    assert.throws(() => new SchemaSet([ns.struct('A', 'a', { xs: f(list(S), 'x', { listMapKeys: ['k'] }) })]), /listType map/);
  });
  it('walks references but not embeds for the closure', () => {
    const s = new SchemaSet([
      ns.struct('Base', 'base', { x: f(S, 'x') }),
      ns.struct('Leaf', 'leaf', { y: f(OPAQUE, 'y') }),
      ns.struct('Top', 'top', { leaves: f(list(ns.ref('Leaf')), 'l') }, { embeds: [{ name: ns.name('Base') }] }),
    ]);
    assert.deepEqual([...s.closure([ns.name('Top')])].sort(), [ns.name('Leaf'), ns.name('Top')]);
    assert.deepEqual(Object.keys(s.fields(ns.name('Top'))), ['x', 'leaves']);
  });
  it('adds apiVersion, kind and metadata to a kind, with its GVK', () => {
    const k = ns.kind('Widget', 'w', { spec: f(OPAQUE, 's') });
    assert.deepEqual(Object.keys(k.fields), ['apiVersion', 'kind', 'metadata', 'spec']);
    assert.deepEqual(k.gvk, { group: 'example.io', version: 'v1', kind: 'Widget' });
    assert.equal(k.fields['metadata']!.proto, 1);
  });
});
