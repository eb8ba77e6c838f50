/**
 * Continue tokens for chunked lists: opaque to clients, tamper-evident
 * (HMAC-SHA256 with a server key shared by every server of a cluster), and
 * carrying the snapshot revision, the resume key (relative to the resource
 * prefix, as the original does) and the issue time. A token older than the
 * configured lifetime (5 minutes by default) is answered with 410 Expired.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { errors, StatusError } from '../api/status.ts';
import { names } from '../naming/index.ts';

export interface ContinuePosition {
  /** Revision of the list's first page. */
  revision: number;
  /** The next key to return, relative to the resource's key prefix. */
  start: string;
  /**
   * Items from `start` to the end of the list as the issuing page counted
   * them, and the filter they were counted under (a page with another filter
   * must count again).
   */
  remaining?: { count: number; filter: string } | undefined;
}

/** Version tag inside every token, so a token of another format is refused. */
const TOKEN_VERSION = `${names.metaGroup}/v1`;

interface TokenBody {
  v: string;
  rv: number;
  start: string;
  /** Issue time, epoch ms. */
  t: number;
  /** Remaining items from start, and the filter they were counted under. */
  left?: number;
  f?: string;
}

export const EXPIRED_CONTINUE_MESSAGE =
  'The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter.';

export class ContinueTokens {
  readonly #key: Uint8Array;
  readonly #lifetimeMs: number;
  readonly #now: () => number;

  constructor(key: Uint8Array, lifetimeMs = 5 * 60_000, now: () => number = Date.now) {
    this.#key = key;
    this.#lifetimeMs = lifetimeMs;
    this.#now = now;
  }

  encode(pos: ContinuePosition): string {
    const body: TokenBody = { v: TOKEN_VERSION, rv: pos.revision, start: pos.start, t: this.#now() };
    if (pos.remaining !== undefined) {
      body.left = pos.remaining.count;
      body.f = pos.remaining.filter;
    }
    const payload = Buffer.from(JSON.stringify(body)).toString('base64url');
    return `${payload}.${this.#mac(payload)}`;
  }

  /** Decodes a client's token; 400 for a malformed or forged one, 410 for an expired one. */
  decode(token: string): ContinuePosition {
    const dot = token.indexOf('.');
    if (dot <= 0) throw invalid();
    const payload = token.slice(0, dot);
    const mac = Buffer.from(token.slice(dot + 1), 'base64url');
    const expected = Buffer.from(this.#mac(payload), 'base64url');
    if (mac.length !== expected.length || !timingSafeEqual(mac, expected)) throw invalid();
    let body: TokenBody;
    try {
      body = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as TokenBody;
    } catch {
      throw invalid();
    }
    if (body.v !== TOKEN_VERSION || !Number.isSafeInteger(body.rv) || body.rv <= 0 || typeof body.start !== 'string' || typeof body.t !== 'number') {
      throw invalid();
    }
    if (this.#now() - body.t > this.#lifetimeMs) throw errors.expired(EXPIRED_CONTINUE_MESSAGE);
    const remaining = Number.isSafeInteger(body.left) && body.left! > 0 && typeof body.f === 'string' ? { count: body.left!, filter: body.f } : undefined;
    return { revision: body.rv, start: body.start, remaining };
  }

  #mac(payload: string): string {
    return createHmac('sha256', this.#key).update(payload).digest('base64url');
  }
}

function invalid(): StatusError {
  return errors.badRequest('continue key is not valid: invalid continue token');
}
