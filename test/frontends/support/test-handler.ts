/**
 * The handler the front-end tests serve: small routes that echo what the
 * front end handed over, stream with backpressure, or wait for the client to
 * leave, recording what the handler saw so tests can check it.
 */
import { createHash } from 'node:crypto';
import type { ApiResponse, RequestHandler } from '../../../src/server/http.ts';

export const DEFAULT_BODY_LIMIT = 16 * 1024 * 1024;

export interface StreamRecord {
  written: number;
  writesRefused: number;
  drains: number;
  maxBuffered: number;
  finished: boolean;
  signalAborted: boolean;
  closeCalls: number;
  /** What write() returned once the client had gone. */
  writeAfterClose: boolean | undefined;
  closedAfterClose: boolean | undefined;
}

export class Recorder {
  readonly streams = new Map<string, StreamRecord>();
  /** Errors that escaped the handler (the front end's onError). */
  readonly errors: unknown[] = [];
  readonly onError = (err: unknown): void => {
    this.errors.push(err);
  };
  readonly #waiters = new Map<string, () => void>();

  record(id: string): StreamRecord {
    let rec = this.streams.get(id);
    if (rec === undefined) {
      rec = {
        written: 0,
        writesRefused: 0,
        drains: 0,
        maxBuffered: 0,
        finished: false,
        signalAborted: false,
        closeCalls: 0,
        writeAfterClose: undefined,
        closedAfterClose: undefined,
      };
      this.streams.set(id, rec);
    }
    return rec;
  }

  /** Resolves once the handler for `id` has seen the client go (signal and onClose). */
  whenGone(id: string): Promise<void> {
    const rec = this.streams.get(id);
    if (rec !== undefined && rec.signalAborted && rec.closeCalls > 0) return Promise.resolve();
    return new Promise((resolve) => this.#waiters.set(id, resolve));
  }

  notify(id: string): void {
    const rec = this.streams.get(id);
    if (rec !== undefined && rec.signalAborted && rec.closeCalls > 0) {
      this.#waiters.get(id)?.();
      this.#waiters.delete(id);
    }
  }
}

function waitForDrainOrClose(res: ApiResponse): Promise<boolean> {
  return new Promise((resolve) => {
    res.onDrain(() => resolve(true));
    res.onClose(() => resolve(false));
  });
}

export function makeTestHandler(recorder: Recorder): RequestHandler {
  return async (req, res) => {
    const q = req.query;
    switch (req.path) {
      case '/echo': {
        const body = await req.body(Number(q.get('limit') ?? DEFAULT_BODY_LIMIT));
        res.writeHead(200, { 'Content-Type': 'application/json', 'x-reply': ['one', 'two'] });
        res.end(
          JSON.stringify({
            method: req.method,
            path: req.path,
            rawQuery: req.rawQuery,
            query: [...q],
            multi: req.headerValues('x-multi'),
            joined: req.header('X-Multi') ?? null,
            auth: req.headerValues('authorization'),
            host: req.header('host') ?? null,
            names: req.headerNames(),
            protocol: req.protocol,
            frontend: req.frontend,
            remoteAddress: req.remoteAddress,
            peerCertificates: req.peerCertificates?.map((der) => Buffer.from(der).toString('base64')) ?? null,
            bodyLength: body.byteLength,
            bodySha256: createHash('sha256').update(body).digest('hex'),
          }),
        );
        return;
      }
      case '/late-raw': {
        // Reads the body only after other work (authentication, say): the
        // upload must wait, neither lost nor buffered without bound.
        await new Promise((resolve) => setTimeout(resolve, Number(q.get('delay') ?? 50)));
        const body = await req.body(Number(q.get('limit') ?? DEFAULT_BODY_LIMIT));
        res.writeHead(200, { 'content-type': 'application/octet-stream' });
        res.end(body);
        return;
      }
      case '/raw': {
        const body = await req.body(Number(q.get('limit') ?? DEFAULT_BODY_LIMIT));
        res.writeHead(200, { 'content-type': 'application/octet-stream' });
        res.end(body);
        return;
      }
      case '/status': {
        // Bodyless answers (HEAD, 204, 304) must not break the connection.
        res.writeHead(Number(q.get('code') ?? 200), { 'content-type': 'text/plain' });
        res.end('status body');
        return;
      }
      case '/bad-header': {
        res.writeHead(200, { 'x-split': 'a\r\nx-injected: yes' });
        res.end('should not get here');
        return;
      }
      case '/stream': {
        // Streams `total` bytes in `chunk`-sized writes, honouring backpressure.
        const id = q.get('id') ?? 'stream';
        const rec = recorder.record(id);
        const total = Number(q.get('total') ?? 1 << 20);
        const size = Number(q.get('chunk') ?? 64 * 1024);
        const chunk = new Uint8Array(size).fill(0x61);
        res.onClose(() => {
          rec.closeCalls++;
          recorder.notify(id);
        });
        req.signal.addEventListener('abort', () => {
          rec.signalAborted = true;
          recorder.notify(id);
        });
        res.writeHead(200, { 'content-type': 'application/octet-stream' });
        while (rec.written < total) {
          const ok = res.write(chunk);
          rec.written += size;
          rec.maxBuffered = Math.max(rec.maxBuffered, res.bufferedBytes);
          if (!ok) {
            if (res.closed) break;
            rec.writesRefused++;
            if (!(await waitForDrainOrClose(res))) break;
            rec.drains++;
          }
        }
        if (!res.closed) {
          res.end();
          rec.finished = true;
        }
        return;
      }
      case '/hang': {
        // A watch-like stream: a first event, then silence until the client leaves.
        const id = q.get('id') ?? 'hang';
        const rec = recorder.record(id);
        res.onClose(() => {
          rec.closeCalls++;
          recorder.notify(id);
        });
        res.writeHead(200, { 'content-type': 'application/json' });
        res.write(new TextEncoder().encode('{"type":"ADDED"}\n'));
        rec.written++;
        await new Promise<void>((resolve) => req.signal.addEventListener('abort', () => resolve()));
        rec.signalAborted = true;
        rec.writeAfterClose = res.write(new TextEncoder().encode('too late'));
        rec.closedAfterClose = res.closed;
        res.end(); // must be a harmless no-op now
        recorder.notify(id);
        return;
      }
      default:
        res.writeHead(404, { 'content-type': 'text/plain' });
        res.end('not found');
    }
  };
}
