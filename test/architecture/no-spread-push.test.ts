/**
 * `target.push(...items)` passes every element as a call argument and throws
 * RangeError past about a hundred thousand; where `items` grows with a
 * request (validation errors, warnings, decoded fields) that is a 500 a client
 * can cause (fuzz seed 6, case 50976). Request-path code uses pushAll.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { pushAll } from '../../src/api/push-all.ts';

const ROOT = path.join(import.meta.dirname, '..', '..');
const REQUEST_PATH_DIRS = ['src/registry', 'src/endpoints', 'src/typed', 'src/patch', 'src/apply', 'src/selectors'];

async function tsFiles(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const e of await readdir(path.join(ROOT, dir), { withFileTypes: true })) {
    const rel = path.join(dir, e.name);
    if (e.isDirectory()) out.push(...(await tsFiles(rel)));
    else if (e.name.endsWith('.ts')) out.push(rel);
  }
  return out;
}

test('request-path code never spreads a list into push()', async () => {
  const offenders: string[] = [];
  for (const dir of REQUEST_PATH_DIRS) {
    for (const file of await tsFiles(dir)) {
      const lines = (await readFile(path.join(ROOT, file), 'utf8')).split('\n');
      lines.forEach((l, i) => {
        if (/\.push\(\.\.\./.test(l)) offenders.push(`${file}:${i + 1}`);
      });
    }
  }
  assert.deepEqual(offenders, []);
});

test('pushAll appends more elements than a spread call could take', () => {
  const big = Array.from({ length: 300_000 }, (_, i) => i);
  assert.throws(() => [].push(...(big as never[])), RangeError);
  const target = [1];
  assert.equal(pushAll(target, big), target);
  assert.equal(target.length, 300_001);
  assert.equal(target[300_000], 299_999);
});
