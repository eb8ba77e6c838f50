/**
 * One-way dependencies: the Status error type and the options checks live in
 * src/api/, below everything that raises them; merge logic, the registry and
 * typed decoding know nothing of the HTTP handlers in src/endpoints/.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

function tsFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    return statSync(p).isDirectory() ? tsFiles(p) : p.endsWith('.ts') ? [p] : [];
  });
}

const IMPORT = /(?:from\s+|import\s*\(\s*)['"]([^'"]+)['"]/g;

function importsInto(file: string, folder: string): string[] {
  const text = readFileSync(file, 'utf8');
  const hits: string[] = [];
  for (const m of text.matchAll(IMPORT)) {
    const spec = m[1]!;
    if (!spec.startsWith('.')) continue;
    const target = relative(ROOT, join(file, '..', spec));
    if (target.startsWith(`${folder}/`)) hits.push(`${relative(ROOT, file)} imports ${spec}`);
  }
  return hits;
}

for (const lower of ['src/api', 'src/apply', 'src/patch', 'src/registry', 'src/typed', 'src/storage', 'src/watchcache']) {
  test(`${lower} imports nothing from src/endpoints`, () => {
    assert.deepEqual(tsFiles(join(ROOT, lower)).flatMap((f) => importsInto(f, 'src/endpoints')), []);
  });
}

test('src/api imports nothing from the layers above it', () => {
  const above = ['src/endpoints', 'src/server', 'src/frontends', 'src/registry', 'shards'];
  assert.deepEqual(tsFiles(join(ROOT, 'src/api')).flatMap((f) => above.flatMap((a) => importsInto(f, a))), []);
});
