/**
 * Shared list answers through real shards over the embedded store: an answer
 * is kept once asked for twice, found again by consistent reads while only
 * other types are written (the store's revision moves on, the type's state
 * does not), and dropped at the type's next write, the next answer carrying
 * it; the bytes are those a fresh build gives. An answer to an asker that
 * takes pieces comes in pieces; a repeated one is built in pieces and kept,
 * and later askers get the same pieces (or them joined).
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { ShardRouter } from '../../shards/router.ts';
import type { ListReply, ShardStats } from '../../shards/protocol.ts';
import { configMapBytes, podBytes, testResources } from '../support/shard-fixtures.ts';

const names = (items: Uint8Array): string[] => (JSON.parse(`[${Buffer.from(items).toString('utf8')}]`) as Array<{ metadata: { name: string } }>).map((o) => o.metadata.name);

/** Every answer is large enough to keep: the sharing rules apply to these small ones. */
const KEEP_ALL = { budgetBytes: 1 << 20, minEntryBytes: 1, maxEntryBytes: 1 << 20, ttlMs: 60_000, idleMs: 60_000 };

/** One shard over the embedded store in a directory of its own, started before the suite's tests and closed after. */
function shardForSuite(runtime: NonNullable<Parameters<typeof ShardRouter.start>[0]['runtime']>): { readonly router: ShardRouter } {
  let dir = '';
  const held: { router: ShardRouter } = { router: undefined as unknown as ShardRouter };
  before(async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'orch-list-share-'));
    held.router = await ShardRouter.start({ shards: 1, resources: testResources, store: { backend: 'embedded', dataDir: dir }, runtime: { tooLargeWaitMs: 2_000, ...runtime } });
  });
  after(async () => {
    await held.router?.close();
    await fs.rm(dir, { recursive: true, force: true });
  });
  return held;
}

describe('shared list answers', () => {
  const shard = shardForSuite({ listResultCache: KEEP_ALL });

  const cacheStats = async (): Promise<NonNullable<ShardStats['listCache']>> => (await shard.router.stats())[0]!.listCache!;
  const list = (read: { kind: 'latest' } | { kind: 'any' } = { kind: 'latest' }): Promise<ListReply> => shard.router.list('/configmaps', read, { namespace: 'share' });

  it('serves repeated consistent reads of an unchanged type from one answer while other types are written, and rebuilds after its own write', async () => {
    for (let i = 0; i < 20; i++) await shard.router.create('/configmaps', `/configmaps/share/c${String(i).padStart(2, '0')}`, configMapBytes('share', `c${String(i).padStart(2, '0')}`, { v: 'x'.repeat(100) }));
    const first = await list();
    const fresh = Buffer.from(first.items);
    assert.equal(first.count, 20);
    await list(); // the second ask: built shared and kept
    const kept = await cacheStats();
    assert.equal(kept.entries, 1, 'the answer is kept once asked for twice');

    // Another type's write moves the store's revision: a consistent read must reflect it, and still shares the answer.
    const pod = await shard.router.create('/pods', '/pods/share/p', podBytes('share', 'p'));
    const afterPod = await list();
    assert.ok(afterPod.revision >= pod.revision, `the answer is as fresh as the store (${afterPod.revision} >= ${pod.revision})`);
    assert.deepEqual(Buffer.from(afterPod.items), fresh, 'the same bytes as a fresh build');
    const fromCache = await list({ kind: 'any' });
    assert.deepEqual(Buffer.from(fromCache.items), fresh);
    const hit = await cacheStats();
    assert.equal(hit.hits - kept.hits, 2, 'both reads found the kept answer');
    assert.equal(hit.entries, 1);

    // A write to the type supersedes the answer: the next read has the new object, and the old answer is gone.
    const added = await shard.router.create('/configmaps', '/configmaps/share/c99', configMapBytes('share', 'c99', { v: 'y' }));
    const afterWrite = await list();
    assert.ok(afterWrite.revision >= added.revision);
    assert.equal(afterWrite.count, 21);
    assert.deepEqual(names(afterWrite.items).at(-1), 'c99');
    const dropped = await cacheStats();
    assert.equal(dropped.entries, 0, 'the superseded answer was dropped');
    assert.equal(dropped.bytes, 0);
    assert.equal(dropped.hits, hit.hits, 'no stale hit');

    // An update (same count, other bytes) is seen too.
    await shard.router.update('/configmaps', '/configmaps/share/c00', configMapBytes('share', 'c00', { v: 'changed' }), (await shard.router.get('/configmaps', '/configmaps/share/c00', { kind: 'latest' })).object!.revision);
    await list();
    const again = await list();
    assert.match(Buffer.from(again.items).toString('utf8'), /"v":"changed"/);
    const third = await list();
    assert.deepEqual(Buffer.from(third.items), Buffer.from(again.items));
    assert.equal((await cacheStats()).hits, dropped.hits + 1, 'the new state is shared in its turn');
  });
});

describe('list answers in pieces (shards/list-pieces.ts)', () => {
  // Every answer streams, in pieces of 100 bytes; answers are shared as in the default.
  const shard = shardForSuite({ listStreamBytes: 1, listPieceBytes: 100, listResultCache: KEEP_ALL });

  const read = async (reply: ListReply): Promise<Buffer> => {
    if (reply.pieces === undefined) return Buffer.from(reply.items);
    const out: Uint8Array[] = [];
    for await (const p of reply.pieces) {
      assert.ok(p.byteLength <= 100);
      out.push(p);
    }
    return Buffer.concat(out);
  };
  const list = (stream: boolean): Promise<ListReply> => shard.router.list('/configmaps', { kind: 'latest' }, { namespace: 'pieces' }, { stream });
  const cacheStats = async (): Promise<NonNullable<ShardStats['listCache']>> => (await shard.router.stats())[0]!.listCache!;

  it('streams a first answer to an asker that takes pieces, builds a repeated one in pieces and keeps them, and streams the next state again', async () => {
    for (let i = 0; i < 20; i++) await shard.router.create('/configmaps', `/configmaps/pieces/c${String(i).padStart(2, '0')}`, configMapBytes('pieces', `c${String(i).padStart(2, '0')}`, { v: 'x'.repeat(50) }));
    const first = await list(true);
    assert.ok(first.pieces !== undefined, 'the first answer comes in pieces');
    assert.equal(first.items.byteLength, 0);
    assert.equal(first.count, 20);
    const firstPieces: Uint8Array[] = [];
    for await (const p of first.pieces) firstPieces.push(p);
    // Shared rather than moved though nobody else reads them: moved buffers cost the reader full collections (shard-runtime.ts).
    assert.ok(firstPieces.every((p) => p.buffer instanceof SharedArrayBuffer), 'the pieces of a first answer are SharedArrayBuffers');
    const streamed = Buffer.concat(firstPieces);
    assert.equal(streamed.byteLength, first.streamed);
    assert.ok(streamed.byteLength > 1_000, 'several pieces');
    assert.deepEqual(names(streamed), Array.from({ length: 20 }, (_, i) => `c${String(i).padStart(2, '0')}`));

    // Asked again: built in pieces to share, and kept once the last piece is made.
    const before = await cacheStats();
    const second = await list(true);
    assert.ok(second.pieces !== undefined, 'a repeated answer comes in pieces too');
    assert.deepEqual(await read(second), streamed);
    const kept = await cacheStats();
    assert.equal(kept.entries, before.entries + 1, 'the repeated answer is kept');
    assert.equal(kept.bytes - before.bytes, streamed.byteLength, 'the cache counts the kept pieces');

    // Asked a third time: the kept pieces (SharedArrayBuffers, nothing rebuilt); joined for an asker that takes no pieces.
    const third = await list(true);
    assert.ok(third.pieces !== undefined);
    const thirdPieces: Uint8Array[] = [];
    for await (const p of third.pieces) thirdPieces.push(p);
    assert.ok(thirdPieces.every((p) => p.buffer instanceof SharedArrayBuffer), 'kept pieces are shared, not copied');
    assert.deepEqual(Buffer.concat(thirdPieces), streamed);
    const joined = await list(false);
    assert.equal(joined.pieces, undefined);
    assert.equal(joined.streamed, undefined);
    assert.deepEqual(Buffer.from(joined.items), streamed);
    const hits = await cacheStats();
    assert.equal(hits.hits - kept.hits, 2, 'both came from the kept answer');
    // Joined once, the answer is kept whole: later askers share that buffer, pieces or not, and nothing is copied again.
    assert.ok(joined.items.buffer instanceof SharedArrayBuffer);
    const fourth = await list(true);
    assert.equal(fourth.pieces, undefined, 'the kept answer is now whole');
    assert.ok(fourth.items.buffer instanceof SharedArrayBuffer);
    assert.deepEqual(Buffer.from(fourth.items), streamed);
    assert.equal((await cacheStats()).bytes, kept.bytes, 'the same bytes counted, in their new form');

    // A write: the next state is a first answer again.
    await shard.router.create('/configmaps', '/configmaps/pieces/c99', configMapBytes('pieces', 'c99', { v: 'y' }));
    const next = await list(true);
    assert.ok(next.pieces !== undefined);
    const nextBytes = await read(next);
    assert.equal(names(nextBytes).at(-1), 'c99');
    assert.equal(next.count, 21);
  });

  it('never streams to an asker that did not offer to take pieces', async () => {
    await shard.router.create('/configmaps', '/configmaps/pieces/d00', configMapBytes('pieces', 'd00', { v: 'z' }));
    const whole = await list(false);
    assert.equal(whole.pieces, undefined);
    assert.equal(whole.count, 22);
    assert.equal(whole.streamed, undefined);
  });
});

describe('list answers in pieces turned off (--list-stream-bytes=0)', () => {
  const shard = shardForSuite({ listStreamBytes: 0, listPieceBytes: 100 });

  it('answers whole even to an asker that takes pieces', async () => {
    for (let i = 0; i < 5; i++) await shard.router.create('/configmaps', `/configmaps/off/c${i}`, configMapBytes('off', `c${i}`, { v: 'x'.repeat(200) }));
    const reply = await shard.router.list('/configmaps', { kind: 'latest' }, { namespace: 'off' }, { stream: true });
    assert.equal(reply.pieces, undefined);
    assert.equal(reply.streamed, undefined);
    assert.deepEqual(names(reply.items), ['c0', 'c1', 'c2', 'c3', 'c4']);
  });
});

describe('a streamed list answer shares its shard (pieces spread over turns)', () => {
  // Every answer streams in pieces of 4 bytes (~17,000 for 300 objects: a few hundred ms of turns, far longer than a
  // GET's round trip even on a loaded machine), and none is kept.
  const shard = shardForSuite({ listStreamBytes: 1, listPieceBytes: 4, listResultCache: { ...KEEP_ALL, budgetBytes: 0 } });

  it('answers a GET asked after the first piece before the answer is through, and the answer is still whole and in order', async () => {
    const n = 300;
    for (let i = 0; i < n; i++) await shard.router.create('/configmaps', `/configmaps/spread/c${String(i).padStart(3, '0')}`, configMapBytes('spread', `c${String(i).padStart(3, '0')}`, { v: 'x'.repeat(100) }));
    const reply = await shard.router.list('/configmaps', { kind: 'latest' }, { namespace: 'spread' }, { stream: true });
    assert.ok(reply.pieces !== undefined && reply.streamed !== undefined);
    const total = Math.ceil(reply.streamed / 4);
    assert.ok(total > 10_000, `many pieces (${total})`);
    const got: Uint8Array[] = [];
    let piecesWhenAnswered = -1;
    let get: Promise<void> | undefined;
    for await (const piece of reply.pieces) {
      got.push(piece);
      // After the first piece, a GET of the same type on the same shard.
      get ??= shard.router.get('/configmaps', '/configmaps/spread/c050', { kind: 'latest' }).then((r) => {
        assert.ok(r.object !== null);
        piecesWhenAnswered = got.length;
      });
    }
    await get;
    assert.ok(piecesWhenAnswered > 0 && piecesWhenAnswered < total, `the GET was answered after ${piecesWhenAnswered} of ${total} pieces`);
    // A write meanwhile does not show in the answer: it is the state when it began.
    const bytes = Buffer.concat(got);
    assert.equal(bytes.byteLength, reply.streamed);
    assert.deepEqual(names(bytes), Array.from({ length: n }, (_, i) => `c${String(i).padStart(3, '0')}`));
  });

  it('stops making the pieces of an answer whose reader left, and carries on with the next', async () => {
    const statsOf = async (): Promise<NonNullable<ShardStats['listStreams']>> => (await shard.router.stats())[0]!.listStreams!;
    const before = await statsOf();
    const reply = await shard.router.list('/configmaps', { kind: 'latest' }, { namespace: 'spread' }, { stream: true });
    assert.ok(reply.pieces !== undefined && reply.streamed !== undefined);
    let read = 0;
    for await (const piece of reply.pieces) {
      read += piece.byteLength;
      break; // the client went away after the first piece
    }
    assert.ok(read > 0 && read < reply.streamed);
    let now = await statsOf();
    for (let i = 0; i < 100 && now.stopped === before.stopped; i++) {
      await new Promise((r) => setTimeout(r, 10));
      now = await statsOf();
    }
    assert.equal(now.stopped, before.stopped + 1, 'the shard stopped that answer');
    assert.equal(now.active, 0, 'and holds no answer in progress');
    // The next answer is whole.
    const again = await shard.router.list('/configmaps', { kind: 'latest' }, { namespace: 'spread' }, { stream: true });
    const got: Uint8Array[] = [];
    for await (const piece of again.pieces!) got.push(piece);
    assert.equal(Buffer.concat(got).byteLength, again.streamed);
    assert.equal((await statsOf()).active, 0);
  });

  it('shows the state the answer began with, whatever is written while its pieces go out', async () => {
    const reply = await shard.router.list('/configmaps', { kind: 'latest' }, { namespace: 'spread' }, { stream: true });
    assert.ok(reply.pieces !== undefined);
    const got: Uint8Array[] = [];
    let write: Promise<unknown> | undefined;
    for await (const piece of reply.pieces) {
      got.push(piece);
      write ??= shard.router.create('/configmaps', '/configmaps/spread/c999', configMapBytes('spread', 'c999', { v: 'new' }));
    }
    await write;
    const listed = names(Buffer.concat(got));
    assert.equal(listed.length, 300);
    assert.ok(!listed.includes('c999'), 'the object written meanwhile is not in the answer');
    const after = await shard.router.list('/configmaps', { kind: 'latest' }, { namespace: 'spread' }, { stream: false });
    assert.equal(after.count, 301);
  });
});

describe('streamed answers made in the pieces of earlier ones (shards/list-piece-pool.ts)', () => {
  // Every answer streams in pieces of 100 bytes, and none is kept.
  const shard = shardForSuite({ listStreamBytes: 1, listPieceBytes: 100, listResultCache: { ...KEEP_ALL, budgetBytes: 0 } });
  const pieceStats = async (): Promise<NonNullable<ShardStats['listPieces']>> => (await shard.router.stats())[0]!.listPieces!;
  const until = async (what: string, ok: (s: NonNullable<ShardStats['listPieces']>) => boolean): Promise<NonNullable<ShardStats['listPieces']>> => {
    for (let i = 0; i < 1_000; i++) {
      const s = await pieceStats();
      if (ok(s)) return s;
      await new Promise((r) => setTimeout(r, 10));
    }
    throw new Error(`never: ${what} (${JSON.stringify(await pieceStats())})`);
  };
  let written = 0;
  const write = (): Promise<unknown> => {
    written++;
    return shard.router.create('/configmaps', `/configmaps/reuse/w${String(written).padStart(3, '0')}`, configMapBytes('reuse', `w${String(written).padStart(3, '0')}`, { v: 'w'.repeat(written) }));
  };
  /** A streamed list read through, its bytes copied out; `done` says how the reader ends. */
  const listOnce = async (done: 'written' | 'silent' | 'left' | 'released'): Promise<string[]> => {
    const reply = await shard.router.list('/configmaps', { kind: 'latest' }, { namespace: 'reuse' }, { stream: true });
    assert.ok(reply.pieces !== undefined);
    const got: Buffer[] = [];
    for await (const p of reply.pieces) {
      got.push(Buffer.from(p)); // a copy: the memory may be reused once this reader says it is through
      if (done === 'left') break;
    }
    if (done === 'written') reply.pieces.written();
    if (done === 'released') reply.pieces.release();
    return done === 'left' ? [] : names(Buffer.concat(got));
  };

  it('reuses the pieces of an answer whose reader wrote them all, and each answer is still its own state', async () => {
    for (let i = 0; i < 20; i++) await write();
    const first = await listOnce('written');
    assert.equal(first.length, 20);
    const afterFirst = await until('the reader is through', (s) => s.readers === 0 && s.free > 0);
    assert.ok(afterFirst.made > 10, `pieces were made (${afterFirst.made})`);
    for (let round = 0; round < 5; round++) {
      await write();
      const listed = await listOnce('written');
      assert.equal(listed.length, 21 + round, 'the new state, whole');
      assert.equal(listed.at(-1), `w${String(written).padStart(3, '0')}`);
      await until('the reader is through', (s) => s.readers === 0);
    }
    const s = await pieceStats();
    assert.ok(s.reused > 50, `later answers were made in pooled pieces (${s.reused} reused)`);
    assert.ok(s.made < afterFirst.made + 10, `hardly any made afresh (${s.made - afterFirst.made} after the first answer)`);
  });

  it('never reuses pieces a reader did not say it wrote, or left mid-answer', async () => {
    // Drain the pool: an answer whose reader never says it is through.
    await write();
    await listOnce('silent');
    const held = await pieceStats();
    assert.equal(held.readers, 1, 'the silent reader still counts');
    await write();
    const before = await pieceStats();
    await listOnce('silent');
    const after = await pieceStats();
    assert.equal(after.reused, before.reused, 'the pool was empty: nothing came back from the silent reader');
    assert.ok(after.made > before.made);

    await write();
    const beforeLeft = await pieceStats();
    await listOnce('left');
    await until('the reader that left is counted out', (s) => s.readers === beforeLeft.readers);
    await write();
    const next = await pieceStats();
    await listOnce('silent');
    assert.equal((await pieceStats()).reused, next.reused, 'the pieces of the answer left mid-way did not come back');

    // A reader that had every piece but whose response was not written cleanly (its client left at the end).
    await write();
    const beforeReleased = await pieceStats();
    await listOnce('released');
    await until('the released reader is counted out', (s) => s.readers === beforeReleased.readers);
    await write();
    const afterReleased = await pieceStats();
    await listOnce('silent');
    assert.equal((await pieceStats()).reused, afterReleased.reused, 'the pieces of the released answer did not come back');
  });
});

describe('kept answers\' pieces reused once the cache lets go of them (shards/list-piece-pool.ts)', () => {
  // Answers kept for a minute: a write to the type is what makes the cache let go (at the type's next list).
  const shard = shardForSuite({ listStreamBytes: 1, listPieceBytes: 100, listResultCache: KEEP_ALL });
  const pieceStats = async (): Promise<NonNullable<ShardStats['listPieces']>> => (await shard.router.stats())[0]!.listPieces!;

  it('holds them while kept and read, and pools them after', async () => {
    for (let i = 0; i < 10; i++) await shard.router.create('/configmaps', `/configmaps/kept/k${i}`, configMapBytes('kept', `k${i}`, { v: 'k'.repeat(40) }));
    const read = async (): Promise<string[]> => {
      const reply = await shard.router.list('/configmaps', { kind: 'latest' }, { namespace: 'kept' }, { stream: true });
      assert.ok(reply.pieces !== undefined);
      const got: Buffer[] = [];
      for await (const p of reply.pieces) got.push(Buffer.from(p));
      reply.pieces.written();
      return names(Buffer.concat(got));
    };
    await read(); // seen once
    const kept = await read(); // asked again: built to keep
    const third = await read(); // the kept pieces
    assert.deepEqual(third, kept);
    // Every reader said it is through (the first answer's pieces may come back a turn late: its last piece's
    // turn can end after the next request came). What is free now does not include the kept pieces.
    let whileKept = await pieceStats();
    for (let i = 0; i < 500 && whileKept.readers > 0; i++) {
      await new Promise((r) => setTimeout(r, 10));
      whileKept = await pieceStats();
    }
    assert.equal(whileKept.readers, 0);
    assert.ok(whileKept.made > whileKept.free, `some pieces are held by the cache (${JSON.stringify(whileKept)})`);
    // A write supersedes the kept answer; the type's next list (whole, from no pool) drops it from the cache.
    await shard.router.create('/configmaps', '/configmaps/kept/k99', configMapBytes('kept', 'k99', { v: 'new' }));
    const whole = await shard.router.list('/configmaps', { kind: 'latest' }, { namespace: 'kept' }, { stream: false });
    assert.equal(whole.count, 11);
    const s = await pieceStats();
    assert.ok(s.free > whileKept.free, `dropped by the cache and read through: pooled (${JSON.stringify(s)})`);
    assert.equal(s.free, s.made, 'every piece is free again: none lost, none held');
  });
});
