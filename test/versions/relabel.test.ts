/**
 * The byte-level fast path of apiVersion-only conversions: only the head of
 * top-level objects changes (not look-alikes nested in them or in strings),
 * lists and watch frames keep their framing, and anything unexpected falls
 * back (undefined) to the parse-and-convert path. Property check with a fixed
 * seed: the fast path equals the slow one on random objects.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { bareRelabel, relabelFor, relabelFrames, relabelItems, relabelObject } from '../../src/registry/conversions/relabel.ts';
import { serializeForStorage } from '../../src/watchcache/json-codec.ts';

const r = relabelFor('CronJob', 'batch/v1', 'batch/v1beta1');
const enc = new TextEncoder();
const dec = new TextDecoder();
const text = (b: Uint8Array | undefined): string | undefined => (b === undefined ? undefined : dec.decode(b));

function stored(name: string, extra: Record<string, unknown> = {}): Uint8Array {
  return serializeForStorage({ apiVersion: 'batch/v1', kind: 'CronJob', metadata: { name }, ...extra });
}

/** The slow path: parse, set apiVersion, serialize in the same order. */
function slow(bytes: Uint8Array): Record<string, unknown> {
  return { ...(JSON.parse(dec.decode(bytes)) as Record<string, unknown>), apiVersion: 'batch/v1beta1' };
}

describe('relabel', () => {
  it('splices the head of an object, leaving look-alikes inside it', () => {
    const lookAlike = { kind: 'CronJob', apiVersion: 'batch/v1', name: 'x' };
    const bytes = stored('a', { status: { active: [lookAlike] }, spec: { note: '{"kind":"CronJob","apiVersion":"batch/v1",' } });
    const out = JSON.parse(text(relabelObject(bytes, r))!) as Record<string, unknown>;
    assert.deepEqual(out, slow(bytes));
    assert.deepEqual((out['status'] as { active: unknown[] }).active[0], lookAlike);
  });
  it('a list: every item, with braces and escaped quotes in strings', () => {
    const items = [stored('a', { spec: { s: 'x}{"],\\"' } }), stored('b'), stored('c', { spec: { nested: [{ a: [{}] }] } })];
    const joined = enc.encode(items.map((b) => dec.decode(b)).join(','));
    const out = JSON.parse(`[${text(relabelItems(joined, 3, r))!}]`) as unknown[];
    assert.deepEqual(out, items.map(slow));
    assert.equal(relabelItems(joined, 2, r), undefined, 'a count that does not match falls back');
  });
  it('falls back on anything else', () => {
    assert.equal(relabelObject(enc.encode('{"apiVersion":"batch/v1","kind":"CronJob"}'), r), undefined);
    assert.equal(relabelItems(enc.encode('{"kind":"CronJob","apiVersion":"batch/v1",'), 1, r), undefined, 'unterminated');
    assert.equal(relabelItems(enc.encode(' {}'), 1, r), undefined);
  });
  it('watch frames: each event object, errors untouched', () => {
    const ev = (type: string, b: Uint8Array): string => `{"type":"${type}","object":${dec.decode(b)}}\n`;
    const status = '{"type":"ERROR","object":{"kind":"Status","apiVersion":"v1","code":410}}\n';
    const frames = enc.encode(ev('ADDED', stored('a')) + ev('MODIFIED', stored('b', { spec: { x: '\n' } })) + status + ev('BOOKMARK', stored('')));
    const lines = text(relabelFrames(frames, r))!.split('\n').filter((l) => l !== '').map((l) => JSON.parse(l) as { type: string; object: { apiVersion: string } });
    assert.deepEqual(lines.map((l) => [l.type, l.object.apiVersion]), [['ADDED', 'batch/v1beta1'], ['MODIFIED', 'batch/v1beta1'], ['ERROR', 'v1'], ['BOOKMARK', 'batch/v1beta1']]);
    assert.equal(relabelFrames(enc.encode('{"type":"ADDED","object":{"kind":"Other"}}\n'), r), undefined);
  });
  it('equals the slow path on random objects (seed 7)', () => {
    let seed = 7;
    const rand = (): number => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
    const chars = ['a', '{', '}', '[', ']', '"', '\\', ',', ':', 'é', '\n'];
    const str = (): string => Array.from({ length: Math.floor(rand() * 12) }, () => chars[Math.floor(rand() * chars.length)]).join('');
    const value = (depth: number): unknown => {
      const k = Math.floor(rand() * (depth > 3 ? 3 : 6));
      if (k === 0) return str();
      if (k === 1) return Math.floor(rand() * 1000);
      if (k === 2) return rand() < 0.5;
      if (k === 3) return Array.from({ length: Math.floor(rand() * 4) }, () => value(depth + 1));
      if (k === 4) return { kind: 'CronJob', apiVersion: 'batch/v1', [str()]: value(depth + 1) };
      return Object.fromEntries(Array.from({ length: Math.floor(rand() * 4) }, () => [str(), value(depth + 1)]));
    };
    for (let i = 0; i < 300; i++) {
      const objs = Array.from({ length: 1 + Math.floor(rand() * 4) }, (_, j) => stored(`o${i}-${j}`, { spec: value(0) }));
      const joined = enc.encode(objs.map((b) => dec.decode(b)).join(','));
      assert.deepEqual(JSON.parse(`[${text(relabelItems(joined, objs.length, r))!}]`), objs.map(slow), `case ${i}`);
      // A bare list's items: the same with kind and apiVersion left out (look-alikes inside untouched).
      const bare = objs.map((b) => {
        const { kind: _k, apiVersion: _a, ...rest } = slow(b);
        return rest;
      });
      assert.deepEqual(JSON.parse(`[${text(relabelItems(joined, objs.length, bareRelabel(r)))!}]`), bare, `case ${i}, bare`);
    }
  });
});
