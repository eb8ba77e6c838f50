/**
 * The store must never hold an object that a served representation cannot
 * encode. Every built-in kind, as the widest well-typed object its schema
 * allows, passes the typed decoder and survives JSON, Protobuf (both ways,
 * byte-stable) and Table; and any value the typed decoder accepts, however
 * mangled (fast-check), encodes to Protobuf and Table without error.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { ResourceRegistry } from '../../src/registry/registry.ts';
import { builtinResourceTypes } from '../../src/registry/catalog/index.ts';
import { servedSchemas } from '../../src/openapi/served-schemas.ts';
import { TypedDecoders, TypedDecodeError } from '../../src/typed/index.ts';
import { decodeObject, encodeObject, supportsProtobuf } from '../../src/protobuf/index.ts';
import { objectTable } from '../../src/endpoints/table/index.ts';
import { sampleOf } from './support/sample.ts';

const registry = new ResourceRegistry(builtinResourceTypes);
const schemas = servedSchemas(registry.types);
const decoders = new TypedDecoders(schemas.set);
const NOW = new Date('2024-06-01T00:00:00Z');

function kindsOf() {
  const seen = new Set<string>();
  return registry.types.filter((rt) => {
    const key = `${rt.group}/${rt.version}/${rt.kind}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** Every representation the server serves an object in; throws if one cannot encode it. */
function encodeEverywhere(rt: (typeof registry.types)[number], obj: Record<string, unknown>): void {
  const gvk = { group: rt.group, version: rt.version, kind: rt.kind };
  JSON.parse(JSON.stringify(obj));
  if (supportsProtobuf(gvk)) encodeObject(obj, gvk);
  JSON.stringify(objectTable({ group: rt.group, version: rt.version, kind: rt.kind, resource: rt.resource }, obj, { includeObject: 'Object', tableGroup: 'meta.k8s.io', tableVersion: 'v1', now: NOW }));
}

test('every built-in kind, every field set, round-trips through JSON, Protobuf and Table', () => {
  const kinds = kindsOf();
  assert.ok(kinds.length > 40, `only ${kinds.length} kinds`);
  for (const rt of kinds) {
    const gvk = { group: rt.group, version: rt.version, kind: rt.kind };
    const name = schemas.kindSchema(gvk);
    const decoder = decoders.forSchema(name);
    const apiVersion = rt.group === '' ? rt.version : `${rt.group}/${rt.version}`;
    const sample = { apiVersion, kind: rt.kind, ...sampleOf(schemas.set, name) };
    assert.deepEqual(decoder.decode(sample), [], `${rt.kind}: a schema-built object has no unknown fields`);
    encodeEverywhere(rt, sample);
    const viaJson = JSON.parse(JSON.stringify(sample)) as Record<string, unknown>;
    assert.deepEqual(decoder.decode(viaJson), [], `${rt.kind}: JSON`);
    if (!supportsProtobuf(gvk)) continue;
    const bytes = encodeObject(sample, gvk);
    const back = decodeObject(bytes).object as Record<string, unknown>;
    assert.deepEqual(decoder.decode(back), [], `${rt.kind}: decoded Protobuf is well-typed`);
    encodeEverywhere(rt, back);
    assert.deepEqual(Buffer.from(encodeObject(back, gvk)), Buffer.from(bytes), `${rt.kind}: Protobuf bytes are stable`);
  }
});

/** Every path to a value in an object (object keys and array indices). */
function pathsOf(v: unknown, at: (string | number)[] = [], out: (string | number)[][] = []): (string | number)[][] {
  out.push(at);
  if (Array.isArray(v)) v.forEach((x, i) => pathsOf(x, [...at, i], out));
  else if (typeof v === 'object' && v !== null) for (const [k, x] of Object.entries(v)) pathsOf(x, [...at, k], out);
  return out;
}

function setAt(root: Record<string, unknown>, path: readonly (string | number)[], value: unknown): void {
  let cur: Record<string | number, unknown> = root;
  for (let i = 0; i < path.length - 1; i++) cur = cur[path[i]!] as Record<string | number, unknown>;
  cur[path[path.length - 1]!] = value;
}

test('whatever the typed decoder accepts, every representation encodes (fast-check)', () => {
  const picked = kindsOf().filter((rt) => ['ConfigMap', 'Secret', 'Pod', 'Service', 'Deployment', 'Job', 'Node', 'Event', 'Ingress', 'Role'].includes(rt.kind) && supportsProtobuf(rt));
  assert.ok(picked.length >= 8);
  const cases = picked.map((rt) => {
    const name = schemas.kindSchema(rt);
    const sample = sampleOf(schemas.set, name, 0, 5);
    return { rt, name, sample, paths: pathsOf(sample).filter((p) => p.length > 0) };
  });
  // A fixed seed: the same cases every run, so a red CI is a regression, not a new draw.
  fc.configureGlobal({ ...fc.readConfigureGlobal(), seed: 20261125 });
  fc.assert(
    fc.property(fc.nat(), fc.nat(), fc.jsonValue({ maxDepth: 3 }), (which, where, value) => {
      const c = cases[which % cases.length]!;
      const obj = structuredClone(c.sample);
      const path = c.paths[where % c.paths.length]!;
      setAt(obj, path, value);
      try {
        decoders.forSchema(c.name).decode(obj);
      } catch (err) {
        if (err instanceof TypedDecodeError) return;
        throw err;
      }
      try {
        encodeEverywhere(c.rt, obj);
      } catch (err) {
        throw new Error(`${c.rt.kind} accepted ${path.join('.')} = ${JSON.stringify(value)} but cannot serve it: ${String(err)}`);
      }
    }),
    { numRuns: 3000, seed: 20261125, includeErrorInReport: true },
  );
});
