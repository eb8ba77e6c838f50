/**
 * NodeWriteQueue against a fake node stream: node gets a slice at a time and
 * the next only after 'drain'; what waits is referenced (not copied) and
 * counted in the budget; an end waits for the queue.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import { NodeWriteQueue, type QueueSink } from '../../src/frontends/node-write-queue.ts';
import { SLICE_BYTES } from '../../src/frontends/node-parts-pump.ts';
import { WatchBudget } from '../../src/frontends/watch-budget.ts';

/** A writable that takes `room` bytes, then refuses until the test calls drain(). */
class FakeSink extends EventEmitter implements QueueSink {
  readonly written: Uint8Array[] = [];
  destroyed = false;
  writableLength = 0;
  constructor(readonly highWaterMark: number) {
    super();
  }
  write(chunk: Uint8Array): boolean {
    this.written.push(chunk);
    this.writableLength += chunk.byteLength;
    return this.writableLength < this.highWaterMark;
  }
  /** The client read everything node held. */
  drain(): void {
    this.writableLength = 0;
    this.emit('drain');
  }
  bytes(): Buffer {
    return Buffer.concat(this.written);
  }
}

const label = { frontend: 'node' as const, path: '/w' };

describe('NodeWriteQueue', () => {
  it('passes small writes straight through while node keeps up', () => {
    const budget = new WatchBudget({ maxBytes: Infinity });
    const sink = new FakeSink(1 << 20);
    const q = new NodeWriteQueue(sink, budget, label, () => assert.fail('not dropped'));
    assert.equal(q.write(Buffer.from('a')), true);
    assert.equal(q.write(Buffer.from('b')), true);
    assert.equal(sink.bytes().toString(), 'ab');
    assert.equal(budget.heldBytes, 0);
  });

  it('queues references while node is full, sends in order a slice per drain, then tells the handler', () => {
    const budget = new WatchBudget({ maxBytes: Infinity });
    const sink = new FakeSink(16 * 1024);
    const q = new NodeWriteQueue(sink, budget, label, () => assert.fail('not dropped'));
    let drains = 0;
    const frames = Array.from({ length: 4 }, (_, i) => new Uint8Array(new ArrayBuffer(300 * 1024)).fill(0x61 + i));
    assert.equal(q.write(frames[0]!), false, 'a frame larger than a slice backs node up');
    for (const f of frames.slice(1)) assert.equal(q.write(f), false);
    q.onDrain(() => drains++);
    assert.equal(sink.written.length, 1, 'node got one slice');
    assert.equal(sink.written[0]!.byteLength, SLICE_BYTES);
    assert.equal(q.queuedBytes, 4 * 300 * 1024 - SLICE_BYTES);
    assert.equal(sink.written[0]!.buffer, frames[0]!.buffer, 'the slice is a view of the frame, not a copy');
    assert.equal(budget.heldBytes, 4 * 300 * 1024 + SLICE_BYTES, 'the four frames once, plus what node holds');
    let rounds = 0;
    while (q.backedUp && rounds++ < 100) sink.drain();
    assert.ok(sink.written.every((w) => w.byteLength <= SLICE_BYTES));
    assert.deepEqual(sink.bytes(), Buffer.concat(frames), 'every byte, in order');
    assert.equal(drains, 1);
    assert.equal(budget.heldBytes, 0);
  });

  it('ends after what is queued', () => {
    const budget = new WatchBudget({ maxBytes: Infinity });
    const sink = new FakeSink(4);
    const q = new NodeWriteQueue(sink, budget, label, () => undefined);
    let ended = false;
    assert.equal(q.endAfter([Buffer.from('x')], () => (ended = true)), false, 'nothing queued: the caller ends');
    q.write(Buffer.from('hello'));
    q.write(Buffer.from(' world'));
    assert.equal(q.endAfter([Buffer.from('!')], () => (ended = true)), true);
    assert.equal(ended, false);
    for (let i = 0; i < 10 && !ended; i++) sink.drain();
    assert.equal(ended, true);
    assert.equal(sink.bytes().toString(), 'hello world!');
  });

  it('is dropped by the budget and lets go of everything', () => {
    let dropped = 0;
    const budget = new WatchBudget({ maxBytes: 100 * 1024 });
    const sink = new FakeSink(1024);
    const q = new NodeWriteQueue(sink, budget, label, () => dropped++);
    q.write(new Uint8Array(1024));
    q.write(new Uint8Array(60 * 1024));
    assert.equal(dropped, 0);
    q.write(new Uint8Array(60 * 1024));
    assert.equal(dropped, 1);
    assert.equal(budget.heldBytes, 0);
    assert.equal(q.write(new Uint8Array(10)), false, 'a dropped queue takes nothing more');
    assert.equal(budget.heldBytes, 0);
  });
});
