/**
 * Case-insensitive access to request headers kept as the flat
 * [name, value, name, value, ...] list every stack hands over (node's
 * rawHeaders for HTTP/1.1 and HTTP/2, uWS's forEach). Working from the raw
 * list keeps repeated headers apart: node's `req.headers` silently drops
 * duplicates of some names (Authorization among them), which would hide a
 * smuggled second credential from the authenticator.
 *
 * The index is built on first use; a request whose headers nobody reads pays
 * nothing.
 */
export class HeaderBag {
  readonly #raw: readonly string[];
  #index: Map<string, string[]> | undefined;

  constructor(raw: readonly string[]) {
    this.#raw = raw;
  }

  /** A header's value, several values joined with ', ' ('; ' for cookie, as HTTP/2 splits it). */
  get(name: string): string | undefined {
    const values = this.#lookup().get(name.toLowerCase());
    if (values === undefined) return undefined;
    if (values.length === 1) return values[0];
    return values.join(name.length === 6 && name.toLowerCase() === 'cookie' ? '; ' : ', ');
  }

  /** Every value of a header, in the order sent. */
  values(name: string): string[] {
    const values = this.#lookup().get(name.toLowerCase());
    return values === undefined ? [] : values.slice();
  }

  /** Lower-case names, pseudo-headers left out. */
  names(): string[] {
    return [...this.#lookup().keys()];
  }

  #lookup(): Map<string, string[]> {
    if (this.#index !== undefined) return this.#index;
    const index = new Map<string, string[]>();
    let authority: string | undefined;
    const raw = this.#raw;
    for (let i = 0; i + 1 < raw.length; i += 2) {
      const name = raw[i]!.toLowerCase();
      const value = raw[i + 1]!;
      if (name.charCodeAt(0) === 58 /* ':' */) {
        if (name === ':authority') authority = value;
        continue;
      }
      const list = index.get(name);
      if (list === undefined) index.set(name, [value]);
      else list.push(value);
    }
    // HTTP/2 carries the host in :authority; filters that read Host should
    // not care which protocol the client spoke.
    if (authority !== undefined && !index.has('host')) index.set('host', [authority]);
    this.#index = index;
    return index;
  }
}
