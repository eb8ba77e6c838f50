/**
 * Lone UTF-16 surrogates: a JSON or YAML escape such as `"\udfff"` decodes
 * to a string no UTF-8 encoding can carry. Go's decoders replace each with
 * U+FFFD when they read the body, so the original stores, and every
 * representation serves, the replaced text. Here JSON.parse keeps them; left
 * alone, JSON answers would echo the escape while Protobuf answers (UTF-8)
 * carry U+FFFD. This replaces them once, at decode, keys included.
 */

interface WellFormedString {
  isWellFormed(): boolean;
  toWellFormed(): string;
}

const wf = (s: string): WellFormedString => s as unknown as WellFormedString;

/** Whether JSON text (UTF-8 bytes) holds a `\uD800`-`\uDFFF` escape: the only way a lone surrogate gets in. */
export function mayHoldSurrogateEscape(b: Uint8Array): boolean {
  for (let i = b.indexOf(0x5c); i >= 0 && i + 2 < b.length; i = b.indexOf(0x5c, i + 1)) {
    if (b[i + 1] === 0x75 /* u */ && (b[i + 2] === 0x64 || b[i + 2] === 0x44) /* d D */) return true;
    if (b[i + 1] === 0x5c) i++; // an escaped backslash
  }
  return false;
}

/** Replaces lone surrogates in every string and key of `root` with U+FFFD, in place. Iterative. */
export function replaceLoneSurrogates(root: unknown): void {
  const stack: unknown[] = [root];
  while (stack.length > 0) {
    const v = stack.pop();
    if (Array.isArray(v)) {
      for (let i = 0; i < v.length; i++) {
        const x: unknown = v[i];
        if (typeof x === 'string') {
          if (!wf(x).isWellFormed()) v[i] = wf(x).toWellFormed();
        } else if (typeof x === 'object' && x !== null) stack.push(x);
      }
    } else if (typeof v === 'object' && v !== null) {
      const o = v as Record<string, unknown>;
      for (const k of Object.keys(o)) {
        let x = o[k];
        if (typeof x === 'string' && !wf(x).isWellFormed()) x = o[k] = wf(x).toWellFormed();
        else if (typeof x === 'object' && x !== null) stack.push(x);
        if (!wf(k).isWellFormed()) {
          delete o[k];
          o[wf(k).toWellFormed()] = x;
        }
      }
    }
  }
}
