/**
 * The handler the large-body tests serve: every route answers with
 * `endParts`, over bodies whose bytes are known, recording the response
 * objects so tests can watch `bufferedBytes` and `closed` from outside.
 */
import { createHash } from 'node:crypto';
import type { ApiResponse, RequestHandler } from '../../../src/server/http.ts';

export const BIG_BYTES = 48 * 1024 * 1024;

/** Bytes from a xorshift generator: no short period, so a dropped, doubled or shifted piece changes the hash. */
export function patterned(size: number, seed: number, memory: ArrayBufferLike = new ArrayBuffer(size + 3)): Uint8Array {
  const words = new Uint32Array(memory, 0, Math.ceil(size / 4));
  let x = seed >>> 0 || 1;
  for (let i = 0; i < words.length; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    words[i] = x >>> 0;
  }
  return new Uint8Array(memory, 0, size);
}

export function sha256(parts: readonly Uint8Array[]): string {
  const hash = createHash('sha256');
  for (const part of parts) hash.update(part);
  return hash.digest('hex');
}

const text = (s: string): Uint8Array => new TextEncoder().encode(s);

/** Made once: every front end sends the same 48 MiB. */
let big: Uint8Array | undefined;
function bigPart(): Uint8Array {
  return (big ??= patterned(BIG_BYTES, 0x9e3779b9));
}

/** A SharedArrayBuffer-backed body, cut into views that do not start at offset 0. */
function sharedParts(size: number): Uint8Array[] {
  const whole = patterned(size + 7, 12345, new SharedArrayBuffer(size + 12));
  return [whole.subarray(7, 1007), whole.subarray(1007, size + 7)];
}

/** The parts each `kind` answers with; tests compute the expected bytes from the same function. */
export function partsOf(kind: string): Uint8Array[] {
  switch (kind) {
    case 'big':
      return [text('{"head":1,"items":['), new Uint8Array(0), bigPart(), new Uint8Array(0), text(']}')];
    case 'medium':
      return [text('<'), bigPart().subarray(0, 16 * 1024 * 1024 + 5), text('>')];
    case 'shared':
      return sharedParts(3 * 1024 * 1024 + 3);
    case 'shared-small':
      return sharedParts(5000).slice(0, 1);
    case 'many':
      // 10,000 parts of 100 bytes, each different.
      return Array.from({ length: 10_000 }, (_, i) => text(`${String(i).padStart(6, '0')}:`.padEnd(99, String.fromCharCode(97 + (i % 26))) + '\n'));
    case 'small':
      return [text('{"a":'), text('1'), text('}')];
    case 'empty':
      return [];
    case 'empty-parts':
      return [new Uint8Array(0), new Uint8Array(0)];
    default:
      throw new Error(`unknown kind ${kind}`);
  }
}

export interface PartsRecord {
  res: ApiResponse;
  /** bufferedBytes right after endParts. */
  bufferedAtEnd: number;
  closeCalls: number;
  signalAborted: boolean;
}

export class PartsRecorder {
  readonly records = new Map<string, PartsRecord>();
  readonly errors: unknown[] = [];
  readonly onError = (err: unknown): void => {
    this.errors.push(err);
  };
  readonly #closeWaiters = new Map<string, () => void>();

  get(id: string): PartsRecord {
    const rec = this.records.get(id);
    if (rec === undefined) throw new Error(`no request ${id} seen`);
    return rec;
  }

  /** Resolves once the response `id` has run its onClose callbacks. */
  whenClosed(id: string): Promise<void> {
    if ((this.records.get(id)?.closeCalls ?? 0) > 0) return Promise.resolve();
    return new Promise((resolve) => this.#closeWaiters.set(id, resolve));
  }

  closed(id: string): void {
    this.#closeWaiters.get(id)?.();
    this.#closeWaiters.delete(id);
  }
}

/**
 * GET/HEAD /parts?kind=<kind>&id=<id>[&status=<code>][&close=1][&write=1]:
 * answers with partsOf(kind). `write=1` writes a first chunk with write()
 * before ending (the head then goes out without a length); `close=1` asks
 * for Connection: close.
 */
export function makePartsHandler(recorder: PartsRecorder): RequestHandler {
  return async (req, res) => {
    const q = req.query;
    if (req.path !== '/parts') {
      res.writeHead(404, { 'content-type': 'text/plain' });
      res.end('not found');
      return;
    }
    const id = q.get('id') ?? 'parts';
    const rec: PartsRecord = { res, bufferedAtEnd: -1, closeCalls: 0, signalAborted: false };
    recorder.records.set(id, rec);
    res.onClose(() => {
      rec.closeCalls++;
      recorder.closed(id);
    });
    req.signal.addEventListener('abort', () => {
      rec.signalAborted = true;
    });
    // Answer after an await, as real handlers do (outside uWS's request callback and its cork).
    await new Promise((resolve) => setImmediate(resolve));
    const headers: Record<string, string | string[]> = {
      'content-type': 'application/octet-stream',
      warning: ['299 - "first"', '299 - "second"'],
    };
    if (q.get('close') === '1') headers['connection'] = 'close';
    res.writeHead(Number(q.get('status') ?? 200), headers);
    const parts = partsOf(q.get('kind') ?? 'small');
    if (q.get('write') === '1') res.write(text('prefix:'));
    res.endParts(parts);
    rec.bufferedAtEnd = res.bufferedBytes;
  };
}
