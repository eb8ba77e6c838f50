/**
 * Generates proto/**\/generated.proto (proto2, one file per package) from the
 * schema DSL plus the Protobuf supplement, with the original's field numbers.
 *
 *   node --import tsx scripts/gen-proto.ts          write the files
 *   node --import tsx scripts/gen-proto.ts --check  exit 1 when proto/ is stale
 *
 * Files under proto/ that the model no longer produces are deleted, so a
 * renamed package does not leave a stale file for the codec to load.
 */
import { mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildProtoModel } from '../src/protobuf/model.ts';
import { renderProtoFiles } from '../src/protobuf/render-proto.ts';

const protoDir = fileURLToPath(new URL('../proto/', import.meta.url));

function existing(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string): void => {
    let entries;
    try {
      entries = readdirSync(d, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      const p = join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name.endsWith('.proto')) out.push(relative(dir, p));
    }
  };
  walk(dir);
  return out.sort();
}

function main(): number {
  const check = process.argv.includes('--check');
  const files = renderProtoFiles(buildProtoModel());
  const stale: string[] = [];
  for (const [path, text] of files) {
    const full = join(protoDir, path);
    let current: string | undefined;
    try {
      current = readFileSync(full, 'utf8');
    } catch {
      current = undefined;
    }
    if (current === text) continue;
    stale.push(path);
    if (!check) {
      mkdirSync(dirname(full), { recursive: true });
      writeFileSync(full, text);
    }
  }
  for (const path of existing(protoDir)) {
    if (files.has(path)) continue;
    stale.push(`${path} (no longer generated)`);
    if (!check) rmSync(join(protoDir, path));
  }
  if (check) {
    if (stale.length > 0) {
      process.stderr.write(`proto/ is stale; run scripts/gen-proto.ts:\n  ${stale.join('\n  ')}\n`);
      return 1;
    }
    return 0;
  }
  process.stdout.write(`${files.size} files; ${stale.length} written or removed\n`);
  return 0;
}

process.exitCode = main();
