import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { serializeForStorage, jsonAtRevision } from '../../src/watchcache/json-codec.ts';
import { seededRandom } from '../support/seeded-random.ts';

/** What serializeForStorage must write: JSON.stringify of the object reordered (kind, apiVersion, metadata with an empty resourceVersion first). */
function reference(obj: Record<string, unknown>): string {
  const ordered: Record<string, unknown> = {};
  if (obj['kind'] !== undefined) ordered['kind'] = obj['kind'];
  if (obj['apiVersion'] !== undefined) ordered['apiVersion'] = obj['apiVersion'];
  const md = obj['metadata'];
  const metadata: Record<string, unknown> = { resourceVersion: '' };
  if (md !== null && typeof md === 'object') {
    for (const k of Object.keys(md)) if (k !== 'resourceVersion') Object.defineProperty(metadata, k, { value: (md as Record<string, unknown>)[k], enumerable: true, writable: true, configurable: true });
  }
  ordered['metadata'] = metadata;
  for (const k of Object.keys(obj)) {
    if (k === 'kind' || k === 'apiVersion' || k === 'metadata') continue;
    // defineProperty: a `__proto__` member stays a member, as JSON.parse made it.
    Object.defineProperty(ordered, k, { value: obj[k], enumerable: true, writable: true, configurable: true });
  }
  return JSON.stringify(ordered);
}

const PIECES = ['x', 'abc', '"', '\\', '\n', '\u0001', '\u001f', 'é', '日本', '\ud83d\ude00', '\ud800', '\udfff', ' ', '/', '\u2028', '\u007f'];

function randomString(r: () => number): string {
  const long = r() < 0.5;
  const n = long ? 60 + Math.floor(r() * 300) : Math.floor(r() * 10);
  let s = '';
  // Mostly plain characters, sometimes one that needs escaping, anywhere in the string.
  const special = r() < 0.5;
  for (let i = 0; i < n; i++) s += special && r() < 0.05 ? PIECES[Math.floor(r() * PIECES.length)]! : String.fromCharCode(97 + Math.floor(r() * 26));
  return s;
}

function randomValue(r: () => number, depth: number): unknown {
  const p = r();
  if (p < 0.45 || depth > 3) return randomString(r);
  if (p < 0.55) return Math.floor(r() * 1000) - 500;
  if (p < 0.6) return r() < 0.5;
  if (p < 0.63) return null;
  if (p < 0.66) return undefined;
  if (p < 0.75) return Array.from({ length: Math.floor(r() * 4) }, () => randomValue(r, depth + 1));
  const o: Record<string, unknown> = {};
  const n = Math.floor(r() * 5);
  const flat = r() < 0.5;
  for (let i = 0; i < n; i++) o[randomString(r).slice(0, 12) || `k${i}`] = flat ? randomString(r) : randomValue(r, depth + 1);
  return o;
}

describe('serializeForStorage (the stored layout, written member by member)', () => {
  it('writes exactly what JSON.stringify writes for the reordered object, over random objects', () => {
    const r = seededRandom(1802);
    for (let i = 0; i < 3_000; i++) {
      const obj: Record<string, unknown> = {};
      if (r() < 0.3) obj['spec'] = randomValue(r, 0);
      if (r() < 0.9) obj['apiVersion'] = 'v1';
      if (r() < 0.9) obj['kind'] = 'ConfigMap';
      const md: Record<string, unknown> = {};
      if (r() < 0.5) md['labels'] = randomValue(r, 2);
      md['name'] = randomString(r);
      if (r() < 0.5) md['resourceVersion'] = '17';
      if (r() < 0.5) md['annotations'] = { a: randomString(r), b: randomString(r) };
      if (r() < 0.3) md['gone'] = undefined;
      obj['metadata'] = r() < 0.05 ? 'not an object' : md;
      const data: Record<string, unknown> = {};
      for (let k = 0; k < Math.floor(r() * 4); k++) data[`key${k}`] = r() < 0.9 ? randomString(r) : randomValue(r, 2);
      obj['data'] = data;
      if (r() < 0.3) obj['status'] = randomValue(r, 0);
      const got = Buffer.from(serializeForStorage(obj)).toString('utf8');
      assert.equal(got, reference(obj), `case ${i}`);
      JSON.parse(got);
    }
  });

  it('keeps a __proto__ member as a member, and a long string with escapes escaped', () => {
    const obj = JSON.parse('{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"a","__proto__":{"x":"y"}},"__proto__":"p","data":{"v":"' + 'q'.repeat(100) + '\\"\\n\\u0000\\ud800"}}') as Record<string, unknown>;
    const got = Buffer.from(serializeForStorage(obj)).toString('utf8');
    assert.equal(got, '{"kind":"ConfigMap","apiVersion":"v1","metadata":{"resourceVersion":"","name":"a","__proto__":{"x":"y"}},"__proto__":"p","data":{"v":"' + 'q'.repeat(100) + '\\"\\n\\u0000\\ud800"}}');
    const back = JSON.parse(got) as { data: { v: string } };
    assert.equal(back.data.v, (obj['data'] as { v: string }).v);
  });

  it('gives bytes a revision is spliced into', () => {
    const stored = serializeForStorage({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a' }, data: { v: 'x'.repeat(2_000) } });
    const json = jsonAtRevision(stored, 42);
    assert.ok(json !== null);
    const parsed = JSON.parse(json.toString('utf8')) as { metadata: { resourceVersion: string }; data: { v: string } };
    assert.equal(parsed.metadata.resourceVersion, '42');
    assert.equal(parsed.data.v.length, 2_000);
  });
});
