/**
 * scanJson skips a string value to its closing quote by a native search once
 * the value is longer than a few bytes (src/typed/duplicates.ts). A quote is
 * escaped when an odd run of backslashes ends right before it; a wrong call
 * there would put the scan out of step and miss (or invent) duplicate keys.
 * Random values full of quotes and backslash runs, short and long, in objects
 * and lists, as a Buffer and as a plain Uint8Array.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { scanJson } from '../../src/typed/duplicates.ts';
import { seededRandom } from '../support/seeded-random.ts';

const PIECES = ['"', '\\', '\\\\', '\\"', 'x', 'é', '😀', '{', '}', '[', ']', ',', ':', '\n', ' '];

function randomText(rand: () => number): string {
  const long = rand() < 0.5;
  const count = long ? 20 + Math.floor(rand() * 400) : Math.floor(rand() * 12);
  let s = '';
  for (let i = 0; i < count; i++) s += rand() < 0.6 ? 'a'.repeat(1 + Math.floor(rand() * (long ? 64 : 3))) : PIECES[Math.floor(rand() * PIECES.length)]!;
  return s;
}

describe('scanJson over values with quotes and backslashes', () => {
  it('finds exactly the repeated keys after any value, long or short', () => {
    const rand = seededRandom(1717);
    for (let round = 0; round < 400; round++) {
      const v = (): string => JSON.stringify(randomText(rand));
      const doc =
        `{"a":${v()},"dup":1,"b":[${v()},${v()},{"in":${v()},"in":${v()}}],` +
        `"c":{"k":${v()}},"dup":${v()},"last":${v()}}`;
      assert.doesNotThrow(() => JSON.parse(doc), 'the document is JSON');
      for (const bytes of [Buffer.from(doc, 'utf8'), new Uint8Array(Buffer.from(doc, 'utf8'))]) {
        const scan = scanJson(bytes);
        assert.deepEqual(scan.duplicates, ['b[2].in', 'dup'], `round ${round}: ${doc.slice(0, 200)}`);
        assert.equal(scan.tooDeepAt, -1);
      }
    }
  });

  it('stops at the end of a value that never closes, with no duplicate invented', () => {
    for (const tail of ['"abc', `"${'a'.repeat(100)}`, `"${'a'.repeat(100)}\\"`, `"${'a'.repeat(100)}\\\\\\`]) {
      const doc = `{"k":1,"v":${tail}`;
      assert.deepEqual(scanJson(Buffer.from(doc)).duplicates, []);
      assert.deepEqual(scanJson(Buffer.from(`{"k":1,"k":${tail}`)).duplicates, ['k']);
    }
  });
});
