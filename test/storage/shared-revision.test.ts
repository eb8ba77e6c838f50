/**
 * The committed revision in shared memory (storage/shared-revision.ts): the
 * embedded store publishes each durable revision before its writers are
 * answered, and a RemoteStore with the cell answers currentRevision() from it
 * without a message, never below a write it has seen acknowledged.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MessageChannel, type TransferListItem } from 'node:worker_threads';
import { EmbeddedStore } from '../../src/storage/embedded/index.ts';
import { publishCommittedRevision } from '../../src/storage/config.ts';
import { RemoteStore } from '../../src/storage/remote/client.ts';
import { StoreServer } from '../../src/storage/remote/server.ts';
import { SharedRevision } from '../../src/storage/shared-revision.ts';

const enc = (s: string): Uint8Array => new TextEncoder().encode(s);

describe('SharedRevision', () => {
  it('only grows: an older publish does not move it back', () => {
    const cell = SharedRevision.allocate();
    assert.equal(cell.read(), 0);
    cell.publish(7);
    cell.publish(3);
    assert.equal(cell.read(), 7);
    // Another view of the same memory (as a shard thread has) sees the same value.
    assert.equal(new SharedRevision(cell.buffer).read(), 7);
    cell.publish(2 ** 40);
    assert.equal(cell.read(), 2 ** 40);
  });

  it('holds the revision of a write before the write is answered', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'orch-shared-rev-'));
    const store = await EmbeddedStore.open({ dir });
    try {
      const cell = SharedRevision.allocate();
      assert.equal(await publishCommittedRevision(store, cell), true);
      const before = cell.read();
      const seen: number[] = [];
      const writes = Array.from({ length: 20 }, (_, i) => store.create(`/configmaps/default/c${i}`, enc(`v${i}`)).then((kv) => seen.push(cell.read() - kv.modRevision)));
      await Promise.all(writes);
      assert.equal(seen.length, 20);
      for (const lead of seen) assert.ok(lead >= 0, `a write was answered before its revision was published (lead ${lead})`);
      assert.equal(cell.read(), before + 20);
      assert.equal(cell.read(), await store.currentRevision());
    } finally {
      await store.close();
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('lets a RemoteStore answer currentRevision() without asking the store thread', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'orch-shared-rev-'));
    const store = await EmbeddedStore.open({ dir });
    const server = new StoreServer(store);
    const ch = new MessageChannel();
    server.connect(ch.port1);
    const cell = SharedRevision.allocate();
    await publishCommittedRevision(store, cell);
    // Counts what the client sends the store thread.
    let posts = 0;
    const port = {
      postMessage: (value: unknown, transfer?: readonly TransferListItem[]) => {
        posts++;
        ch.port2.postMessage(value, transfer as TransferListItem[]);
      },
      on: ch.port2.on.bind(ch.port2),
      off: ch.port2.off.bind(ch.port2),
      close: ch.port2.close.bind(ch.port2),
    } as unknown as ConstructorParameters<typeof RemoteStore>[0];
    const remote = new RemoteStore(port, 'embedded', new SharedRevision(cell.buffer));
    try {
      const kv = await remote.create('/configmaps/default/a', enc('x'));
      const afterCreate = posts;
      assert.ok(afterCreate >= 1);
      // Read-your-writes: the revision a consistent read starts from covers the acknowledged write.
      assert.equal(await remote.currentRevision(), kv.modRevision);
      await new Promise((r) => setImmediate(r));
      assert.equal(posts, afterCreate, 'currentRevision() sent a message to the store thread');
      // Without the cell it asks the store thread, and gets the same answer.
      const plain = new RemoteStore(port, 'embedded');
      assert.equal(await plain.currentRevision(), kv.modRevision);
      assert.equal(posts, afterCreate + 1);
    } finally {
      await remote.close().catch(() => undefined);
      server.close();
      await store.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});
