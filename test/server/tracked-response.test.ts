/**
 * TrackedResponse's onClose means "the front end is through with the
 * exchange", never merely "end() was called": a response that ended may
 * still hold a slow client's bytes by reference in its front end, and a
 * streamed LIST lets the shard reuse its pieces' memory on onClose. Telling
 * it at end() let the shard write the next answer into pieces a uWS
 * response still had queued: a 200 LIST whose last piece showed another
 * answer's bytes (test/e2e/list-streamed.test.ts, under load).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { TrackedResponse } from '../../src/server/filters/tracked-response.ts';
import { RequestContext } from '../../src/server/context.ts';
import { writeStreamedList } from '../../src/endpoints/respond.ts';
import { ListPieceQueue } from '../../shards/list-pieces.ts';
import type { ApiRequest, ApiResponse } from '../../src/server/http.ts';

/** A front end's response whose end() leaves the body queued: it closes only when the test says the client took it. */
function slowFrontEnd(): ApiResponse & { chunks: Uint8Array[]; ended: boolean; closeNow(): void } {
  const closeCallbacks: (() => void)[] = [];
  const r = {
    chunks: [] as Uint8Array[],
    ended: false,
    closed: false,
    bufferedBytes: 0,
    writeHead: () => {},
    // Held by reference, as the uWS response holds what uWS did not take.
    write(chunk: Uint8Array) {
      r.chunks.push(chunk);
      return true;
    },
    flushHead: () => true,
    onDrain: () => {},
    onClose(cb: () => void) {
      closeCallbacks.push(cb);
    },
    destroy: () => {},
    end(chunk?: Uint8Array | string) {
      if (chunk !== undefined) r.chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
      r.ended = true;
    },
    endParts: () => {},
    closeNow() {
      r.closed = true;
      for (const cb of closeCallbacks.splice(0)) cb();
    },
  };
  return r;
}

function request(): ApiRequest {
  return {
    method: 'GET',
    path: '/api/v1/configmaps',
    rawQuery: '',
    query: new URLSearchParams(),
    header: () => undefined,
    headerValues: () => [],
    headerNames: () => [],
    remoteAddress: '127.0.0.1',
    protocol: 'http/1.1',
    frontend: 'uws',
    peerCertificates: undefined,
    body: async () => new Uint8Array(),
    signal: new AbortController().signal,
  };
}

const microtasks = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

describe('TrackedResponse.onClose', () => {
  it('waits for the front end to close, when registered after end()', async () => {
    const inner = slowFrontEnd();
    const res = new TrackedResponse(inner);
    res.writeHead(200, {});
    res.end(new Uint8Array([1]));
    assert.equal(res.finished, true, 'ended: finished as far as the filters go');
    let closed = 0;
    res.onClose(() => closed++);
    await microtasks();
    assert.equal(closed, 0, 'the front end still holds the body: not closed');
    inner.closeNow();
    assert.equal(closed, 1);
    // Registered after the close: told on a later microtask, once.
    res.onClose(() => closed++);
    assert.equal(closed, 1);
    await microtasks();
    assert.equal(closed, 2);
  });

  it('tells listeners registered before end() at the close too, and onFinished at end()', async () => {
    const inner = slowFrontEnd();
    const res = new TrackedResponse(inner);
    const seen: string[] = [];
    res.onClose(() => seen.push('close'));
    res.onFinished(() => seen.push('finished'));
    res.end();
    await microtasks();
    assert.deepEqual(seen, ['finished']);
    inner.closeNow();
    assert.deepEqual(seen, ['finished', 'close']);
  });
});

describe('writeStreamedList and the shard reusing its pieces', () => {
  it('says the pieces are written only once the front end let go of them, not at end()', async () => {
    const inner = slowFrontEnd();
    const ctx = new RequestContext(request(), new TrackedResponse(inner));
    const piece = new Uint8Array(new SharedArrayBuffer(4)).fill(0x61);
    let written = 0;
    let stopped = 0;
    const pieces = new ListPieceQueue(
      piece.byteLength,
      () => stopped++,
      () => written++,
    );
    pieces.push(piece);
    await writeStreamedList(ctx, Buffer.from('{"items":['), pieces, Buffer.from(']}'));
    assert.equal(inner.ended, true, 'the answer ended');
    assert.ok(inner.chunks.includes(piece), 'the front end holds the piece itself (by reference)');
    await microtasks();
    assert.equal(written, 0, 'the front end still holds a piece: the shard must not reuse it yet');
    inner.closeNow();
    assert.equal(written, 1, 'the front end let go: now it may');
    assert.equal(stopped, 0);
  });
});
