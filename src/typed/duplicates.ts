/**
 * Duplicate keys in JSON text. JSON.parse keeps the last of a repeated key
 * silently; the original's strict decoder (sigs.k8s.io/json) reports each
 * as `duplicate field "spec.replicas"` for `fieldValidation` Strict and
 * Warn. Run only when the answer matters (not for Ignore): it is a second
 * pass over the body.
 */

const OBJECT = 1;
const ARRAY = 2;

/** Paths of repeated keys, in document order (`spec.containers[0].name`). */
export function duplicateFields(text: string): string[] {
  const out: string[] = [];
  const kinds: number[] = [];
  const keys: (Set<string> | undefined)[] = [];
  // Per open container: the current key (object) or item index (array).
  const segs: (string | number)[] = [];
  let expectKey = false;
  const n = text.length;
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x7b /* { */) {
      kinds.push(OBJECT);
      keys.push(undefined);
      segs.push('');
      expectKey = true;
    } else if (c === 0x5b /* [ */) {
      kinds.push(ARRAY);
      keys.push(undefined);
      segs.push(0);
      expectKey = false;
    } else if (c === 0x7d /* } */ || c === 0x5d /* ] */) {
      kinds.pop();
      keys.pop();
      segs.pop();
      expectKey = false;
    } else if (c === 0x2c /* , */) {
      const top = kinds.length - 1;
      if (kinds[top] === OBJECT) expectKey = true;
      else if (top >= 0) segs[top] = (segs[top] as number) + 1;
    } else if (c === 0x22 /* " */) {
      const start = i;
      let escaped = false;
      for (i++; i < n; i++) {
        const d = text.charCodeAt(i);
        if (d === 0x5c) {
          escaped = true;
          i++;
        } else if (d === 0x22) break;
      }
      if (!expectKey) continue;
      expectKey = false;
      const top = kinds.length - 1;
      const key = escaped ? decodeKey(text.slice(start, i + 1)) : text.slice(start + 1, i);
      let set = keys[top];
      if (set === undefined) keys[top] = set = new Set();
      if (set.has(key)) out.push(pathOf(segs, top, key));
      else set.add(key);
      segs[top] = key;
    }
  }
  return out;
}

function decodeKey(quoted: string): string {
  try {
    return JSON.parse(quoted) as string;
  } catch {
    return quoted.slice(1, -1);
  }
}

function pathOf(segs: readonly (string | number)[], top: number, key: string): string {
  let p = '';
  for (let i = 0; i < top; i++) {
    const s = segs[i]!;
    p += typeof s === 'number' ? `[${s}]` : p === '' ? s : `.${s}`;
  }
  return p === '' ? key : `${p}.${key}`;
}
