/**
 * Every product-bound name is spelled in src/naming/ only (issue 10): a grep
 * of src/ for the spec's product literals outside the naming table.
 *
 * One documented exception: the internal schema prefix `io.orch` in the
 * Protobuf supplement tables (src/protobuf/supplement/), which key the
 * proto/ messages by their full names. Those names never reach the wire
 * (Protobuf carries field numbers; the envelope carries apiVersion/kind) and
 * OpenAPI output renames them per flavor (publicSchemaName).
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const SRC = join(ROOT, 'src');

/** The product literals (the shared hook's pattern plus the rest of the table's), also as escaped in a RegExp (`orch\\.io`). */
const PRODUCT_LITERALS = /orch\\?\.io|orch-system|orch-public|orch-node-lease|vnd\\?\.orch|ORCH_EXEC_INFO|orch-root-ca\\?\.crt|orchconfig|x-orch-/;
const INTERNAL_SCHEMA_PREFIX = /\bio\\?\.orch\b/;

function tsFiles(dir: string): string[] {
  const out: string[] = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const full = join(dir, e.name);
    if (e.isDirectory()) out.push(...tsFiles(full));
    else if (e.name.endsWith('.ts')) out.push(full);
  }
  return out;
}

function strays(pattern: RegExp, allowed: (rel: string) => boolean): string[] {
  const hits: string[] = [];
  for (const file of tsFiles(SRC)) {
    const rel = relative(ROOT, file);
    if (allowed(rel)) continue;
    readFileSync(file, 'utf8')
      .split('\n')
      .forEach((line, i) => {
        if (pattern.test(line)) hits.push(`${rel}:${i + 1}: ${line.trim().slice(0, 120)}`);
      });
  }
  return hits;
}

const inNaming = (rel: string): boolean => rel.startsWith(join('src', 'naming') + '/');

test('no product literal in src/ outside src/naming/', () => {
  assert.deepEqual(strays(PRODUCT_LITERALS, inNaming), []);
});

test('the internal schema prefix only in src/naming/ and the Protobuf supplement tables', () => {
  const supplement = join('src', 'protobuf', 'supplement') + '/';
  assert.deepEqual(strays(INTERNAL_SCHEMA_PREFIX, (rel) => inNaming(rel) || rel.startsWith(supplement)), []);
});
