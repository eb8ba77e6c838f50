/**
 * Loads the generated proto/ sources with protobufjs (parse only: no network,
 * no import resolution, every file is read) and compiles the field tables.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import protobuf from 'protobufjs';
import { compilePlans, type MessagePlan } from './plan.ts';

/** proto/ at the project root: two levels up from sources, three from the compiled dist/src/protobuf. */
export const PROTO_DIR = fileURLToPath(new URL(import.meta.url.endsWith('.js') ? '../../../proto/' : '../../proto/', import.meta.url));

/** Every .proto file under dir, sorted by relative path. */
export function listProtoFiles(dir: string = PROTO_DIR): string[] {
  const out: string[] = [];
  const walk = (d: string, rel: string): void => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      if (e.isDirectory()) walk(join(d, e.name), `${rel}${e.name}/`);
      else if (e.name.endsWith('.proto')) out.push(`${rel}${e.name}`);
    }
  };
  walk(dir, '');
  return out.sort();
}

export function loadRoot(dir: string = PROTO_DIR): protobuf.Root {
  const root = new protobuf.Root();
  const files = listProtoFiles(dir);
  if (files.length === 0) throw new Error(`protobuf: no .proto files under ${dir}; run scripts/gen-proto.ts`);
  for (const file of files) protobuf.parse(readFileSync(join(dir, file), 'utf8'), root, { keepCase: true });
  root.resolveAll();
  return root;
}

export function loadPlans(dir: string = PROTO_DIR): Map<string, MessagePlan> {
  return compilePlans(loadRoot(dir));
}
