/**
 * Request bodies in every format the server reads: JSON (mutated seeds, raw
 * byte damage), YAML for server-side apply (including hostile documents:
 * aliases, billion laughs, tags, merge keys, deep flow nesting), Protobuf
 * (the seed encoded, then its bytes damaged) and the four patch types.
 * Each generator yields bytes plus the content type they claim to be.
 */
import fc from 'fast-check';
import { stringify as yamlStringify } from 'yaml';
import { encodeObject, supportsProtobuf } from '../../../src/protobuf/index.ts';
import type { JsonObject as ProtoJson } from '../../../src/protobuf/index.ts';
import type { ResourceType } from '../../../src/registry/resource-type.ts';
import { applyMutations, deepText, RawJson, DEPTHS, mutationArb, NUMBER_EDGES, toJsonText, toPlain, type Fuzzed, type Mutation } from './mutate.ts';
import type { Json, JsonObject } from './schema-values.ts';

export const JSON_TYPE = 'application/json';
export const YAML_TYPE = 'application/yaml';
export const PROTOBUF_TYPE = 'application/vnd.kubernetes.protobuf';
export const JSON_PATCH = 'application/json-patch+json';
export const MERGE_PATCH = 'application/merge-patch+json';
export const STRATEGIC_PATCH = 'application/strategic-merge-patch+json';
export const APPLY_PATCH = 'application/apply-patch+yaml';

export interface Body {
  /** What the generator meant to send, for reports. */
  readonly label: string;
  readonly contentType: string;
  readonly bytes: Uint8Array;
}

const enc = new TextEncoder();
const text = (label: string, contentType: string, s: string): Body => ({ label, contentType, bytes: enc.encode(s) });

/** Damage done to the bytes of an encoded body. */
export type ByteDamage =
  | { readonly kind: 'none' }
  | { readonly kind: 'truncate'; readonly at: number }
  | { readonly kind: 'flip'; readonly at: number; readonly byte: number }
  | { readonly kind: 'insert'; readonly at: number; readonly bytes: readonly number[] }
  | { readonly kind: 'append'; readonly bytes: readonly number[] };

/** Bytes that break decoders: invalid UTF-8, NUL, a varint that never ends, a length past the end. */
const NASTY_BYTES: readonly (readonly number[])[] = [
  [0xff], [0xc3], [0xed, 0xa0, 0x80], [0x00], [0xef, 0xbb, 0xbf],
  [0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01], [0x0a, 0xff, 0xff, 0xff, 0xff, 0x0f], [0x12, 0x80, 0x80, 0x80, 0x80, 0x10],
  [0x22, 0x05, 0x61], [0x2c], [0x7d], [0x5d], [0x22],
];

export const byteDamageArb: fc.Arbitrary<ByteDamage> = fc.oneof(
  { weight: 8, arbitrary: fc.constant({ kind: 'none' as const }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('truncate' as const), at: fc.nat() }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('flip' as const), at: fc.nat(), byte: fc.nat({ max: 255 }) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('insert' as const), at: fc.nat(), bytes: fc.constantFrom(...NASTY_BYTES) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('append' as const), bytes: fc.constantFrom(...NASTY_BYTES) }) },
);

export function damage(bytes: Uint8Array, d: ByteDamage): Uint8Array {
  if (d.kind === 'none' || (bytes.length === 0 && d.kind !== 'append')) return bytes;
  switch (d.kind) {
    case 'truncate':
      return bytes.slice(0, d.at % bytes.length);
    case 'flip': {
      const out = bytes.slice();
      out[d.at % out.length] = d.byte;
      return out;
    }
    case 'insert': {
      const i = d.at % (bytes.length + 1);
      return Buffer.concat([bytes.subarray(0, i), Uint8Array.from(d.bytes), bytes.subarray(i)]);
    }
    case 'append':
      return Buffer.concat([bytes, Uint8Array.from(d.bytes)]);
  }
}

/** A seed, its mutations and byte damage: the common shape of object bodies. */
export interface Mutated {
  readonly seed: JsonObject;
  readonly mutations: readonly Mutation[];
  readonly damage: ByteDamage;
}

export function mutatedArb(seed: fc.Arbitrary<JsonObject>): fc.Arbitrary<Mutated> {
  return fc.record({
    seed,
    mutations: fc.oneof({ weight: 2, arbitrary: fc.constant([] as Mutation[]) }, { weight: 5, arbitrary: fc.array(mutationArb, { minLength: 1, maxLength: 3 }) }),
    damage: byteDamageArb,
  });
}

export function jsonBody(m: Mutated, contentType = JSON_TYPE, label = 'json'): Body {
  const value = applyMutations(m.seed, m.mutations);
  return { label, contentType, bytes: damage(enc.encode(toJsonText(value)), m.damage) };
}

/** The seed encoded as Protobuf (when its kind has a Protobuf form and the value encodes), then damaged. */
export function protobufBody(rt: ResourceType, m: Mutated): Body {
  const gvk = { group: rt.group, version: rt.version, kind: rt.kind };
  let bytes: Uint8Array;
  try {
    if (!supportsProtobuf(gvk)) throw new Error('no protobuf form');
    // Mutations that keep a plain value (type changes, numbers) exercise the encoder's own checks first.
    const plain = toPlain(applyMutations(m.seed, m.mutations.filter((x) => x.kind !== 'huge' && x.kind !== 'deep' && x.kind !== 'wide')));
    bytes = encodeObject((plain ?? m.seed) as ProtoJson, gvk);
  } catch {
    try {
      bytes = encodeObject(m.seed as ProtoJson, gvk);
    } catch {
      // Not encodable: send the raw Protobuf prefix and junk, which the decoder must still reject cleanly.
      bytes = Uint8Array.of(0x6b, 0x38, 0x73, 0x00, 0x0a, 0x02, 0x76, 0x31);
    }
  }
  return { label: 'protobuf', contentType: PROTOBUF_TYPE, bytes: damage(bytes, m.damage) };
}

/** Hostile YAML documents, by name. */
export const HOSTILE_YAML: Readonly<Record<string, string>> = {
  billionLaughs: [
    'a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]',
    'b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]',
    'c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]',
    'd: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]',
    'e: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]',
    'f: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e]',
    'g: &g [*f,*f,*f,*f,*f,*f,*f,*f,*f]',
    'h: &h [*g,*g,*g,*g,*g,*g,*g,*g,*g]',
    'i: &i [*h,*h,*h,*h,*h,*h,*h,*h,*h]',
    'apiVersion: v1', 'kind: ConfigMap', 'metadata: {name: fuzz-a}', 'data: {x: y}', 'spec: *i',
  ].join('\n'),
  aliasToMetadata: 'apiVersion: v1\nkind: ConfigMap\nmetadata: &m {name: fuzz-a, labels: {a: b}}\ndata: *m\n',
  selfAlias: 'apiVersion: v1\nkind: ConfigMap\nmetadata: &m {name: fuzz-a, x: *m}\n',
  undefinedAlias: 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: *nope}\n',
  mergeKeys: 'base: &b {name: fuzz-a}\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  <<: *b\n  <<: [*b, *b]\n',
  tags: 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: !!str fuzz-a, labels: !!map {a: !!binary aGVsbG8=}}\ndata: {x: !!js/function "function(){}", y: !!python/object:os.system "id", z: !custom 1}\n',
  setTag: 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: fuzz-a}\ndata: !!set {a, b}\n',
  omapTag: 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: fuzz-a}\ndata: !!omap [a: 1, b: 2]\n',
  yaml11Scalars: 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: fuzz-a, labels: {a: yes, b: off, c: 0o17, d: 017, e: 0x1F, f: 1_000, g: .inf, h: .nan, i: ~}}\ndata: {t: 2024-01-01, u: 12:30:00}\n',
  multiDocument: 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: fuzz-a}\n---\napiVersion: v1\nkind: Secret\nmetadata: {name: fuzz-b}\n',
  duplicateKeys: 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: fuzz-a}\nmetadata: {name: fuzz-b}\n',
  complexKey: 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: fuzz-a}\ndata: {? [a, b] : c, ? {x: y} : z}\n',
  nonStringKeys: 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: fuzz-a}\ndata: {1: a, true: b, null: c, 1.5: d}\n',
  directive: '%YAML 1.1\n%TAG ! tag:example.com,2000:\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: fuzz-a}\n',
  badIndent: 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: fuzz-a\n    labels: x\n',
  tabs: 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n\tname: fuzz-a\n',
  scalarRoot: '"just a string"\n',
  listRoot: '- a\n- b\n',
  nullRoot: '~\n',
  empty: '',
  onlyComment: '# nothing\n',
  hugeNumber: 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: fuzz-a, generation: 99999999999999999999999999}\n',
  binaryScalar: 'apiVersion: v1\nkind: Secret\nmetadata: {name: fuzz-a}\ndata: {k: !!binary "!!!notbase64"}\n',
};

const deepYaml = (depth: number, flow: boolean): string =>
  flow ? 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: fuzz-a}\ndata: ' + '['.repeat(depth) + ']'.repeat(depth) + '\n'
    // Block nesting costs its depth squared in indentation: 300 levels is deep enough for block style.
    : 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: fuzz-a}\nx:\n' + Array.from({ length: Math.min(depth, 300) }, (_, i) => ' '.repeat(i + 1) + `k${i}:`).join('\n') + ' 1\n';

export type YamlChoice =
  | { readonly kind: 'seed'; readonly m: Mutated; readonly asJson: boolean }
  | { readonly kind: 'hostile'; readonly name: string; readonly m: Mutated }
  | { readonly kind: 'deep'; readonly depth: number; readonly flow: boolean };

export function yamlChoiceArb(seed: fc.Arbitrary<JsonObject>): fc.Arbitrary<YamlChoice> {
  return fc.oneof(
    { weight: 25, arbitrary: fc.record({ kind: fc.constant('seed' as const), m: mutatedArb(seed), asJson: fc.boolean() }) },
    { weight: 15, arbitrary: fc.record({ kind: fc.constant('hostile' as const), name: fc.constantFrom(...Object.keys(HOSTILE_YAML)), m: mutatedArb(seed) }) },
    { weight: 1, arbitrary: fc.record({ kind: fc.constant('deep' as const), depth: fc.constantFrom(...DEPTHS), flow: fc.boolean() }) },
  );
}

export function yamlBody(c: YamlChoice, contentType: string): Body {
  switch (c.kind) {
    case 'seed': {
      if (c.asJson) return jsonBody(c.m, contentType, 'yaml-as-json');
      const plain = toPlain(applyMutations(c.m.seed, c.m.mutations.filter((x) => x.kind !== 'deep' && x.kind !== 'wide')));
      let s: string;
      try {
        s = yamlStringify(plain);
      } catch {
        s = yamlStringify(c.m.seed);
      }
      return { label: 'yaml', contentType, bytes: damage(enc.encode(s), c.m.damage) };
    }
    case 'hostile':
      return { label: `yaml:${c.name}`, contentType, bytes: damage(enc.encode(HOSTILE_YAML[c.name]!), c.m.damage) };
    case 'deep':
      return text(`yaml:deep${c.depth}${c.flow ? 'flow' : 'block'}`, contentType, deepYaml(c.depth, c.flow));
  }
}

// ---- JSON Patch (RFC 6902) ----

const POINTERS = [
  '', '/', '/metadata', '/metadata/labels', '/metadata/labels/a', '/metadata/labels/a~1b', '/metadata/name', '/metadata/resourceVersion',
  '/metadata/finalizers/-', '/metadata/finalizers/0', '/metadata/finalizers/99999999999999999999', '/metadata/finalizers/-1', '/metadata/finalizers/01',
  '/spec', '/spec/containers/0', '/spec/containers/-', '/spec/containers/0/name', '/data', '/data/k', '/data/~2', '/data/~', '/kind', '/apiVersion',
  '/status', 'metadata', '/metadata/__proto__/polluted', '/metadata/annotations/' + 'x'.repeat(300),
  '/a/b/c/d/e/f/g/h', '/metadata/labels/' + '0/'.repeat(1_000) + '0',
] as const;
const OPS = ['add', 'remove', 'replace', 'move', 'copy', 'test', 'bogus', '', 'ADD'] as const;

const patchValue: fc.Arbitrary<Fuzzed> = fc.oneof(
  { weight: 20, arbitrary: fc.jsonValue({ maxDepth: 2 }) as fc.Arbitrary<Json> },
  { weight: 5, arbitrary: fc.constantFrom(...NUMBER_EDGES).map((n) => new RawJson(n)) },
  { weight: 1, arbitrary: fc.constantFrom(...DEPTHS).map((d) => deepText(d, true)) },
);

export const jsonPatchOpArb = fc.record(
  { op: fc.constantFrom(...OPS), path: fc.constantFrom(...POINTERS), from: fc.constantFrom(...POINTERS), value: patchValue },
  { requiredKeys: ['op'] },
);

export type JsonPatchChoice =
  | { readonly kind: 'ops'; readonly ops: readonly (typeof jsonPatchOpArb extends fc.Arbitrary<infer T> ? T : never)[]; readonly damage: ByteDamage }
  | { readonly kind: 'many'; readonly count: number }
  | { readonly kind: 'notArray'; readonly m: Mutated };

export function jsonPatchChoiceArb(seed: fc.Arbitrary<JsonObject>): fc.Arbitrary<JsonPatchChoice> {
  return fc.oneof(
    { weight: 40, arbitrary: fc.record({ kind: fc.constant('ops' as const), ops: fc.array(jsonPatchOpArb, { maxLength: 4 }), damage: byteDamageArb }) },
    { weight: 1, arbitrary: fc.record({ kind: fc.constant('many' as const), count: fc.constantFrom(10_001, 100_000) }) },
    { weight: 4, arbitrary: fc.record({ kind: fc.constant('notArray' as const), m: mutatedArb(seed) }) },
  );
}

export function jsonPatchBody(c: JsonPatchChoice): Body {
  switch (c.kind) {
    case 'ops':
      return { label: 'json-patch', contentType: JSON_PATCH, bytes: damage(enc.encode(toJsonText(c.ops as unknown as Fuzzed)), c.damage) };
    case 'many':
      // Many cheap operations: the original caps a JSON patch at 10,000 operations.
      return text(`json-patch:${c.count}ops`, JSON_PATCH, '[' + Array.from({ length: c.count }, () => '{"op":"test","path":"/kind","value":"x"}').join(',') + ']');
    case 'notArray':
      return jsonBody(c.m, JSON_PATCH, 'json-patch:object');
  }
}

// ---- Strategic merge patch directives ----

const DIRECTIVES: readonly Readonly<Record<string, Json>>[] = [
  { $patch: 'replace' }, { $patch: 'delete' }, { $patch: 'merge' }, { $patch: 'bogus' }, { $patch: 7 },
  { $retainKeys: ['metadata'] }, { $retainKeys: 'metadata' }, { $retainKeys: [1, null] },
  { '$setElementOrder/containers': [{ name: 'c' }] }, { '$setElementOrder/containers': 'x' }, { '$setElementOrder/finalizers': [1, {}] },
  { '$deleteFromPrimitiveList/finalizers': ['a'] }, { '$deleteFromPrimitiveList/finalizers': {} }, { '$unknownDirective': 1 },
  { metadata: { finalizers: [{ $patch: 'delete' }] } }, { metadata: { labels: { $patch: 'replace', a: 'b' } } },
  { spec: { containers: [{ $patch: 'delete' }] } }, { spec: { containers: [{ name: 'c', $patch: 'replace' }] } }, { spec: { containers: { $patch: 'replace' } } },
  { spec: { containers: [{ $patch: 'delete', name: 7 }] } }, { spec: { ports: [{ port: 80, $patch: 'delete' }, { $retainKeys: ['port'] }] } },
];

export interface StrategicChoice {
  readonly m: Mutated;
  /** Indexes into DIRECTIVES, merged into the top level of the patch. */
  readonly directives: readonly number[];
}

export function strategicChoiceArb(seed: fc.Arbitrary<JsonObject>): fc.Arbitrary<StrategicChoice> {
  return fc.record({ m: mutatedArb(seed), directives: fc.array(fc.nat({ max: DIRECTIVES.length - 1 }), { maxLength: 3 }) });
}

export function strategicBody(c: StrategicChoice): Body {
  const seed: JsonObject = { ...c.m.seed };
  for (const i of c.directives) Object.assign(seed, structuredClone(DIRECTIVES[i]!));
  return jsonBody({ ...c.m, seed }, STRATEGIC_PATCH, 'strategic-merge-patch');
}
