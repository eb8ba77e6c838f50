/**
 * The pool of list pieces (shards/list-piece-pool.ts): pieces come back only
 * when nobody can read them (made, no reader left, not kept, not spoiled),
 * the pool stays within its bound, and it lets go of everything once idle.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ListPiecePool, PieceLease } from '../../shards/list-piece-pool.ts';

const PIECE = 1024;

function clock(): { now: () => number; advance: (ms: number) => void } {
  let t = 1_000;
  return { now: () => t, advance: (ms) => (t += ms) };
}

describe('ListPiecePool', () => {
  it('hands out views over whole pooled buffers and takes back the same memory', () => {
    const pool = new ListPiecePool(PIECE, 10 * PIECE, 1_000);
    const a = pool.take(PIECE);
    const b = pool.take(100);
    assert.equal(a.byteLength, PIECE);
    assert.equal(b.byteLength, 100, 'a last, shorter piece is a view of its length');
    assert.equal(b.buffer.byteLength, PIECE, 'over a whole buffer, so that it can come back');
    assert.ok(a.buffer instanceof SharedArrayBuffer);
    assert.equal(pool.made, 2);
    b[0] = 42;
    pool.give([b.buffer as SharedArrayBuffer]);
    assert.equal(pool.freePieces, 1);
    const c = pool.take(PIECE);
    assert.equal(c.buffer, b.buffer, 'the returned buffer is reused');
    assert.equal(c[0], 42, 'as it is: the answer overwrites what it uses');
    assert.equal(pool.reused, 1);
    assert.equal(pool.made, 2);
  });

  it('refuses a piece larger than its pieces, and keeps no buffer of another size', () => {
    const pool = new ListPiecePool(PIECE, 10 * PIECE, 1_000);
    assert.throws(() => pool.take(PIECE + 1), RangeError);
    pool.give([new SharedArrayBuffer(PIECE / 2), new SharedArrayBuffer(PIECE * 2)]);
    assert.equal(pool.freePieces, 0);
  });

  it('keeps at most its bound free', () => {
    const pool = new ListPiecePool(PIECE, 3 * PIECE, 1_000);
    pool.give(Array.from({ length: 5 }, () => new SharedArrayBuffer(PIECE)));
    assert.equal(pool.freePieces, 3);
  });

  it('lets go of its free pieces once no piece was taken for its idle time, not before', () => {
    const c = clock();
    const pool = new ListPiecePool(PIECE, 10 * PIECE, 1_000, c.now);
    const p = pool.take(PIECE);
    pool.give([p.buffer as SharedArrayBuffer]);
    c.advance(999);
    pool.sweep();
    assert.equal(pool.freePieces, 1, 'still in use');
    c.advance(2);
    pool.sweep();
    assert.equal(pool.freePieces, 0, 'idle: given back');
  });
});

describe('PieceLease', () => {
  const setup = (): { pool: ListPiecePool; lease: PieceLease } => {
    const pool = new ListPiecePool(PIECE, 100 * PIECE, 60_000);
    const lease = new PieceLease(pool);
    for (let i = 0; i < 3; i++) lease.piece(PIECE);
    return { pool, lease };
  };

  it('returns the pieces once they are all made and their one reader wrote them', () => {
    const { pool, lease } = setup();
    lease.addReader();
    lease.readerDone(true);
    assert.equal(pool.freePieces, 0, 'not before the answer is made');
    lease.made();
    assert.equal(pool.freePieces, 3);
    lease.made();
    assert.equal(pool.freePieces, 3, 'once');
  });

  it('waits for every reader', () => {
    const { pool, lease } = setup();
    lease.addReader();
    lease.made();
    lease.addReader();
    lease.readerDone(true);
    assert.equal(pool.freePieces, 0);
    lease.readerDone(true);
    assert.equal(pool.freePieces, 3);
  });

  it('never returns pieces a reader left with, or whose making failed', () => {
    const left = setup();
    left.lease.addReader();
    left.lease.made();
    left.lease.addReader();
    left.lease.readerDone(false);
    left.lease.readerDone(true);
    assert.equal(left.pool.freePieces, 0, 'a reader that left may still hold a piece');

    const failed = setup();
    failed.lease.addReader();
    failed.lease.spoil();
    failed.lease.made();
    failed.lease.readerDone(true);
    assert.equal(failed.pool.freePieces, 0);
  });

  it('holds kept pieces until the cache lets go of them and their readers are through', () => {
    const { pool, lease } = setup();
    lease.addReader();
    lease.kept();
    lease.made();
    lease.readerDone(true);
    assert.equal(pool.freePieces, 0, 'kept: later askers get them');
    lease.addReader();
    lease.unkept();
    assert.equal(pool.freePieces, 0, 'a reader of the kept answer is still writing them');
    lease.readerDone(true);
    assert.equal(pool.freePieces, 3);
  });
});
