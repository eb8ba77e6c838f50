/**
 * Whether a decoded request head is well formed (RFC 9113 8.2 and 8.3):
 * pseudo-headers first, each once, only the request ones; names in lower case
 * and made of token characters; no connection-specific fields; no control
 * character in a value. A malformed request is a stream error
 * (PROTOCOL_ERROR), as Go's HTTP/2 server answers it.
 */
import { isConnectionSpecific } from '../response-head.ts';

/** Characters a field name may hold in HTTP/2: token characters, lower case only. */
const NAME_CHAR = new Uint8Array(128);
for (const c of "!#$%&'*+-.^_`|~0123456789abcdefghijklmnopqrstuvwxyz") NAME_CHAR[c.charCodeAt(0)] = 1;

function validName(name: string, from: number): boolean {
  if (name.length <= from) return false;
  for (let i = from; i < name.length; i++) {
    const c = name.charCodeAt(i);
    if (c >= 128 || NAME_CHAR[c] === 0) return false;
  }
  return true;
}

/**
 * A value with a control character (HTAB aside) or DEL is refused, as Go's HTTP/2 server (the original's)
 * refuses it; whitespace at the ends is let through as Go lets it through (RFC 9113 8.2.1 calls it malformed,
 * but a client the original serves must be served here too).
 */
function validValue(value: string): boolean {
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    if ((c < 0x20 && c !== 0x09) || c === 0x7f) return false;
  }
  return true;
}

/** What is wrong with the request head `fields` ([name, value, ...]), or undefined when nothing is. */
export function validateRequestFields(fields: readonly string[]): string | undefined {
  let method: string | undefined;
  let scheme: string | undefined;
  let path: string | undefined;
  let authority: string | undefined;
  let regular = false;
  for (let i = 0; i < fields.length; i += 2) {
    const name = fields[i]!;
    const value = fields[i + 1]!;
    if (name.charCodeAt(0) === 58 /* ':' */) {
      if (regular) return 'a pseudo-header after a regular field';
      switch (name) {
        case ':method':
          if (method !== undefined) return 'a repeated :method';
          method = value;
          break;
        case ':scheme':
          if (scheme !== undefined) return 'a repeated :scheme';
          scheme = value;
          break;
        case ':path':
          if (path !== undefined) return 'a repeated :path';
          path = value;
          break;
        case ':authority':
          if (authority !== undefined) return 'a repeated :authority';
          authority = value;
          break;
        default:
          return `the pseudo-header ${JSON.stringify(name)} is not a request's`;
      }
    } else {
      regular = true;
      if (!validName(name, 0)) return `an invalid field name ${JSON.stringify(name)}`;
      if (isConnectionSpecific(name)) return `the connection-specific field ${name}`;
      if (name === 'te' && value !== 'trailers') return 'te other than "trailers"';
    }
    if (!validValue(value)) return `an invalid value for ${name}`;
  }
  if (method === undefined || method.length === 0) return 'no :method';
  if (method === 'CONNECT') {
    if (scheme !== undefined || path !== undefined || authority === undefined) return 'a malformed CONNECT';
    return undefined;
  }
  if (scheme === undefined || scheme.length === 0) return 'no :scheme';
  if (path === undefined || path.length === 0) return 'no :path';
  return undefined;
}
