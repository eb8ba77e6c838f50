/**
 * Case-insensitive access to request headers kept as the flat
 * [name, value, name, value, ...] list every stack hands over (node's
 * rawHeaders for HTTP/1.1 and HTTP/2, uWS's forEach). Working from the raw
 * list keeps repeated headers apart: node's `req.headers` silently drops
 * duplicates of some names (Authorization among them), which would hide a
 * smuggled second credential from the authenticator.
 *
 * A request carries a handful of headers and the server asks for about ten
 * names, most of them absent: a scan of the list costs less than building a
 * Map of it (a lower-cased copy and a hash of every name, ~2,400 instructions
 * of a ~106,000-instruction GET under callgrind), so the list is scanned,
 * and indexed only when it is long enough for the index to pay.
 */

/** Above this many headers a request's names are indexed in a Map instead of scanned. */
const SCAN_MAX_HEADERS = 24;

/**
 * Names as asked for, lower-cased: callers ask for a few literal names on
 * every request, and a lookup here (their hashes are kept) costs less than
 * toLowerCase's scan. Bounded in entries and in the length of a name kept,
 * as a name may come from a request (impersonate-extra-* names are asked for).
 */
const lowerNames = new Map<string, string>();
const LOWER_NAMES_MAX = 1024;
const LOWER_NAME_MAX_LENGTH = 64;

/** `name` in lower case (header names are ASCII tokens; anything else is lowered as JavaScript does). */
export function lowerHeaderName(name: string): string {
  let lower = lowerNames.get(name);
  if (lower === undefined) {
    lower = name.toLowerCase();
    if (name.length > LOWER_NAME_MAX_LENGTH) return lower;
    if (lowerNames.size >= LOWER_NAMES_MAX) lowerNames.clear();
    lowerNames.set(name, lower);
  }
  return lower;
}

export class HeaderBag {
  /** Lower-case names at even indexes, values at odd ones (pseudo-headers included, as sent). */
  readonly #list: readonly string[];
  #index: Map<string, string[]> | undefined;

  /**
   * `namesLowerCase`: the stack already lower-cased every name (uWS does;
   * HTTP/2 requires it), so the list is used as it is.
   */
  constructor(raw: readonly string[], namesLowerCase = false) {
    this.#list = namesLowerCase ? raw : lowerCasedNames(raw);
  }

  /** A header's value, several values joined with ', ' ('; ' for cookie, as HTTP/2 splits it). */
  get(name: string): string | undefined {
    const key = lowerHeaderName(name);
    if (key.charCodeAt(0) === 58 /* ':' */) return undefined;
    const list = this.#list;
    if (list.length > SCAN_MAX_HEADERS * 2) {
      const values = this.#lookup().get(key);
      if (values === undefined) return undefined;
      return values.length === 1 ? values[0] : values.join(key === 'cookie' ? '; ' : ', ');
    }
    let first: string | undefined;
    let more: string[] | undefined;
    for (let i = 0; i + 1 < list.length; i += 2) {
      if (list[i] !== key) continue;
      if (first === undefined) first = list[i + 1]!;
      else (more ??= [first]).push(list[i + 1]!);
    }
    if (more !== undefined) return more.join(key === 'cookie' ? '; ' : ', ');
    if (first === undefined && key === 'host') return this.#authority();
    return first;
  }

  /** Every value of a header, in the order sent. */
  values(name: string): string[] {
    const key = lowerHeaderName(name);
    if (key.charCodeAt(0) === 58 /* ':' */) return [];
    const list = this.#list;
    if (list.length > SCAN_MAX_HEADERS * 2) return this.#lookup().get(key)?.slice() ?? [];
    const out: string[] = [];
    for (let i = 0; i + 1 < list.length; i += 2) if (list[i] === key) out.push(list[i + 1]!);
    if (out.length === 0 && key === 'host') {
      const authority = this.#authority();
      if (authority !== undefined) out.push(authority);
    }
    return out;
  }

  /** Lower-case names, each once, in the order first sent, pseudo-headers left out (host last when it comes from :authority). */
  names(): string[] {
    const list = this.#list;
    if (list.length > SCAN_MAX_HEADERS * 2) return [...this.#lookup().keys()];
    const out: string[] = [];
    let authority = false;
    for (let i = 0; i + 1 < list.length; i += 2) {
      const name = list[i]!;
      if (name.charCodeAt(0) === 58 /* ':' */) {
        if (name === ':authority') authority = true;
        continue;
      }
      if (!out.includes(name)) out.push(name);
    }
    if (authority && !out.includes('host')) out.push('host');
    return out;
  }

  /**
   * HTTP/2 carries the host in :authority; filters that read Host should
   * not care which protocol the client spoke (a Host header, if sent, wins).
   */
  #authority(): string | undefined {
    const list = this.#list;
    for (let i = 0; i + 1 < list.length; i += 2) if (list[i] === ':authority') return list[i + 1];
    return undefined;
  }

  #lookup(): Map<string, string[]> {
    if (this.#index !== undefined) return this.#index;
    const index = new Map<string, string[]>();
    let authority: string | undefined;
    const list = this.#list;
    for (let i = 0; i + 1 < list.length; i += 2) {
      const name = list[i]!;
      const value = list[i + 1]!;
      if (name.charCodeAt(0) === 58 /* ':' */) {
        if (name === ':authority') authority = value;
        continue;
      }
      const values = index.get(name);
      if (values === undefined) index.set(name, [value]);
      else values.push(value);
    }
    if (authority !== undefined && !index.has('host')) index.set('host', [authority]);
    this.#index = index;
    return index;
  }
}

/** A copy of `raw` with every name lower-cased (node's HTTP/1.1 rawHeaders keep the client's case); not through the cache, which is for names asked for. */
function lowerCasedNames(raw: readonly string[]): string[] {
  const out = raw.slice();
  for (let i = 0; i < out.length; i += 2) out[i] = out[i]!.toLowerCase();
  return out;
}
