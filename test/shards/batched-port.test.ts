/**
 * BatchedPort (shards/batched-port.ts): a turn's messages go as one post at
 * the turn's end, however long the turn.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { MessageChannel, type MessagePort } from 'node:worker_threads';
import { BatchedPort } from '../../shards/batched-port.ts';

/** A real channel: the batches as the other end receives them. */
function channel(): { port: MessagePort; received: unknown[][]; close(): void } {
  const ch = new MessageChannel();
  const received: unknown[][] = [];
  ch.port2.on('message', (batch: unknown[]) => received.push(batch));
  return { port: ch.port1, received, close: () => (ch.port1.close(), ch.port2.close()) };
}

/** Lets the other end's messages arrive. */
const delivered = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 20));

function busy(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until) {
    // a turn that works this long
  }
}

describe('BatchedPort', () => {
  it('sends the messages of a turn as one batch at its end, however long the turn', async () => {
    const { port, received, close } = channel();
    const batched = new BatchedPort<number, number>(port, () => {});
    for (let i = 0; i < 25; i++) batched.send(i);
    busy(3);
    for (let i = 25; i < 50; i++) batched.send(i);
    assert.equal(batched.posts, 0, 'nothing before the turn ends');
    await nextTurn();
    assert.equal(batched.posts, 1);
    await delivered();
    assert.deepEqual(received, [Array.from({ length: 50 }, (_, i) => i)]);
    close();
  });
});
