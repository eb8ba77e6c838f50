import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { MessageChannel } from 'node:worker_threads';
import { handOver, ownedCopy } from '../../src/storage/handed-over.ts';

describe('values handed over to a store (src/storage/handed-over.ts)', () => {
  it('keeps a handed-over view of a whole buffer as it is, and copies everything else', () => {
    const whole = new Uint8Array([1, 2, 3]);
    assert.equal(ownedCopy(handOver(whole)), whole, 'handed over: no copy');

    const notHanded = new Uint8Array([4, 5, 6]);
    const copy = ownedCopy(notHanded);
    assert.notEqual(copy, notHanded);
    notHanded[0] = 9;
    assert.deepEqual([...copy], [4, 5, 6], 'a caller reusing its buffer does not change the copy');

    // A view into a larger buffer (a pool slice) is copied even when handed over: kept, it would hold all of it.
    const big = new Uint8Array(8192);
    const slice = big.subarray(100, 103);
    const kept = ownedCopy(handOver(slice));
    assert.notEqual(kept, slice);
    assert.equal(kept.buffer.byteLength, 3);
  });

  it('a value that came through a port is a buffer of its own', async () => {
    const { port1, port2 } = new MessageChannel();
    const got = new Promise<Uint8Array>((resolve) => port2.once('message', (m: { value: Uint8Array }) => resolve(m.value)));
    const sent = new TextEncoder().encode('{"kind":"ConfigMap"}');
    port1.postMessage({ value: sent });
    const value = await got;
    port1.close();
    assert.notEqual(value.buffer, sent.buffer);
    assert.equal(ownedCopy(handOver(value)), value, 'taken as it is');
  });
});
