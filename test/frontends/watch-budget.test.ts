/**
 * The watch output budget: queues hold references, a buffer shared by many
 * queues counts once, and past the bound the queue holding the most goes
 * first, until the total is back under.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { WatchBudget, type WatchBudgetDrop } from '../../src/frontends/watch-budget.ts';

const KiB = 1024;
const label = (path: string) => ({ frontend: 'uws' as const, path });

function frame(bytes: number, fill = 0x61): Uint8Array {
  return new Uint8Array(new ArrayBuffer(bytes)).fill(fill);
}

describe('WatchBudget', () => {
  it('counts a buffer shared by many queues once, and each queue by what it has to send', () => {
    const budget = new WatchBudget({ maxBytes: Infinity });
    const queues = Array.from({ length: 40 }, (_, i) => budget.open(label(`/w${i}`), () => assert.fail('nothing is dropped')));
    const frames = Array.from({ length: 5 }, () => frame(100 * KiB));
    for (const f of frames) for (const q of queues) q.push(f);
    assert.equal(budget.heldBytes, 500 * KiB, '40 watchers of the same five events hold them once');
    assert.equal(budget.queuedBytes, 40 * 500 * KiB);
    assert.equal(budget.holdingStreams, 40);

    // One watcher sends a frame and a half: its view of the second starts mid-way.
    const q0 = queues[0]!;
    q0.advance(150 * KiB);
    assert.equal(q0.bytes, 350 * KiB);
    const next = q0.view(1 << 20);
    assert.equal(next.byteLength, 50 * KiB);
    assert.equal(next.buffer, frames[1]!.buffer, 'a view of the shared frame, not a copy');
    assert.equal(budget.heldBytes, 500 * KiB, 'the others still hold the first frame');

    for (const q of queues.slice(1)) q.advance(100 * KiB);
    assert.equal(budget.heldBytes, 400 * KiB, 'the first frame is let go once every queue sent it');
    for (const q of queues) q.close();
    assert.equal(budget.heldBytes, 0);
    assert.equal(budget.queuedBytes, 0);
    assert.equal(budget.holdingStreams, 0);
  });

  it('counts the stacks\' own copies per stream', () => {
    const budget = new WatchBudget({ maxBytes: Infinity });
    const q = budget.open(label('/w'), () => undefined);
    q.setPrivate(16 * KiB);
    q.push(frame(10 * KiB));
    assert.equal(budget.heldBytes, 26 * KiB);
    assert.equal(q.totalBytes, 26 * KiB);
    q.setPrivate(0);
    q.advance(10 * KiB);
    assert.equal(budget.heldBytes, 0);
    assert.equal(budget.holdingStreams, 0);
  });

  it('drops the queue holding the most first, and only as many as needed', () => {
    const drops: WatchBudgetDrop[] = [];
    const dropped: string[] = [];
    const budget = new WatchBudget({ maxBytes: 1000 * KiB, onDrop: (d) => drops.push(d) });
    const open = (path: string) => budget.open(label(path), () => dropped.push(path));
    const slowest = open('/slowest');
    const slow = open('/slow');
    const fast = open('/fast');
    // The slowest is behind by four frames of its own; all three share the later ones.
    for (let i = 0; i < 4; i++) slowest.push(frame(200 * KiB));
    const shared = frame(150 * KiB);
    slowest.push(shared);
    slow.push(shared);
    fast.push(shared);
    assert.equal(budget.heldBytes, 950 * KiB);
    assert.deepEqual(dropped, []);

    const more = frame(100 * KiB);
    slow.push(more); // 1050 KiB held: over
    assert.deepEqual(dropped, ['/slowest'], 'the queue with the most bytes went, and that was enough');
    assert.equal(drops.length, 1);
    assert.equal(drops[0]!.queuedBytes, 950 * KiB);
    assert.equal(drops[0]!.heldBytes, 1050 * KiB);
    assert.equal(drops[0]!.label.path, '/slowest');
    assert.equal(budget.heldBytes, 250 * KiB);
    assert.equal(budget.drops, 1);
    assert.equal(slowest.closed, true);
    slowest.push(frame(10 * KiB));
    assert.equal(budget.heldBytes, 250 * KiB, 'a dropped queue takes nothing more');
  });

  it('drops every queue of a shared backlog that alone passes the bound', () => {
    const dropped: string[] = [];
    const budget = new WatchBudget({ maxBytes: 300 * KiB });
    const queues = ['/a', '/b', '/c'].map((p) => budget.open(label(p), () => dropped.push(p)));
    for (let i = 0; i < 4; i++) {
      const f = frame(100 * KiB);
      for (const q of queues) q.push(f);
    }
    assert.equal(dropped.length, 3, 'dropping one freed nothing the others still held');
    assert.equal(budget.heldBytes, 0);
  });

  it('a drop that writes to another queue does not recurse', () => {
    const order: string[] = [];
    const budget = new WatchBudget({ maxBytes: 100 * KiB });
    const big = budget.open(label('/big'), () => {
      order.push('big');
      small.push(frame(60 * KiB)); // e.g. a close callback writing an error frame elsewhere
      order.push('big done');
    });
    const small = budget.open(label('/small'), () => order.push('small'));
    big.push(frame(80 * KiB));
    small.push(frame(30 * KiB));
    assert.deepEqual(order, ['big', 'big done'], 'the second push ran inside the first drop and waited for its round');
    assert.equal(budget.heldBytes, 90 * KiB);
  });

  it('keeps its sums exact under any sequence of operations', () => {
    const op = fc.oneof(
      fc.record({ k: fc.constant('push' as const), q: fc.nat(3), f: fc.nat(5), len: fc.integer({ min: 0, max: 64 }) }),
      fc.record({ k: fc.constant('advance' as const), q: fc.nat(3), n: fc.nat(300) }),
      fc.record({ k: fc.constant('private' as const), q: fc.nat(3), n: fc.nat(100) }),
      fc.record({ k: fc.constant('close' as const), q: fc.nat(3) }),
    );
    // A fixed seed: the same cases every run, so a red CI is a regression, not a new draw.
    fc.configureGlobal({ ...fc.readConfigureGlobal(), seed: 20261125 });
    fc.assert(
      fc.property(fc.integer({ min: 50, max: 1000 }), fc.array(op, { maxLength: 60 }), (max, ops) => {
        const budget = new WatchBudget({ maxBytes: max });
        const frames = Array.from({ length: 6 }, (_, i) => frame(64, i));
        // A model of each queue: the frames it refers to (with unsent bytes), and its private count.
        const models = Array.from({ length: 4 }, () => ({ entries: [] as { f: number; left: number }[], priv: 0, closed: false }));
        const reset = (i: number): void => {
          models[i] = { entries: [], priv: 0, closed: true };
        };
        const queues = Array.from({ length: 4 }, (_, i) => budget.open(label(`/q${i}`), () => reset(i)));
        for (const o of ops) {
          const q = queues[o.q]!;
          const m = models[o.q]!;
          if (o.k === 'push') {
            if (!m.closed && o.len > 0) m.entries.push({ f: o.f, left: o.len });
            q.push(frames[o.f]!.subarray(0, o.len));
          } else if (o.k === 'advance') {
            let n = Math.min(o.n, q.bytes);
            q.advance(n);
            while (n > 0) {
              const e = m.entries[0]!;
              const step = Math.min(n, e.left);
              e.left -= step;
              n -= step;
              if (e.left === 0) m.entries.shift();
            }
          } else if (o.k === 'private') {
            if (!m.closed) m.priv = o.n;
            q.setPrivate(o.n);
          } else {
            reset(o.q);
            q.close();
          }
          const held = new Set<number>();
          let queued = 0;
          let priv = 0;
          for (const x of models) {
            for (const e of x.entries) {
              held.add(e.f);
              queued += e.left;
            }
            priv += x.priv;
          }
          assert.ok(budget.heldBytes <= max, 'within the bound after every step');
          assert.equal(budget.heldBytes, held.size * 64 + priv);
          assert.equal(budget.queuedBytes, queued + priv);
        }
        for (const q of queues) q.close();
        assert.equal(budget.heldBytes, 0);
        assert.equal(budget.queuedBytes, 0);
        assert.equal(budget.holdingStreams, 0);
      }),
      { numRuns: 300 },
    );
  });
});
