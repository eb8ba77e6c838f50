/**
 * Vendor extensions in both spellings. Our own clients read `x-<product>-*`; real
 * clients of the original (kubectl v1.32 and client-go) only know
 * `x-kubernetes-*`, so every extension is written twice.
 */
import { names } from '../naming/index.ts';
export type Json = string | number | boolean | null | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };

const SPELLINGS = names.openApiExtensionPrefixes;

/** Sets `x-kubernetes-<name>` and `x-<product>-<name>` on `target`. */
export function setExtension(target: JsonObject, name: string, value: Json): void {
  for (const prefix of SPELLINGS) target[`${prefix}${name}`] = value;
}

/** Reads an extension, accepting either spelling (ours first). */
export function getExtension(source: JsonObject, name: string): Json | undefined {
  return source[`${names.openApiExtensionPrefix}${name}`] ?? source[`x-kubernetes-${name}`];
}
