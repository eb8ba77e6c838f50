/**
 * A write through the store thread (StoreServer) answers with the key and its
 * revisions only: the value is the writer's own bytes, so it is not copied
 * back across threads; RemoteStore puts the caller's bytes into the KeyValue.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MessageChannel } from 'node:worker_threads';
import { EmbeddedStore } from '../../src/storage/embedded/index.ts';
import { RemoteStore } from '../../src/storage/remote/client.ts';
import { StoreServer } from '../../src/storage/remote/server.ts';
import type { StoreReply } from '../../src/storage/remote/protocol.ts';

const enc = (s: string): Uint8Array => new TextEncoder().encode(s);

test('create and update answers carry no value; the RemoteStore returns the bytes it wrote', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'orch-remote-writes-'));
  const store = await EmbeddedStore.open({ dir });
  const server = new StoreServer(store);
  const raw = new MessageChannel();
  server.connect(raw.port1);
  const remoteCh = new MessageChannel();
  server.connect(remoteCh.port1);
  const remote = new RemoteStore(remoteCh.port2, 'embedded');
  try {
    const replies: StoreReply[] = [];
    raw.port2.on('message', (batch: StoreReply[]) => replies.push(...batch));
    raw.port2.postMessage([{ op: 'create', id: 1, key: '/configmaps/default/raw', value: enc('{"a":1}') }]);
    await new Promise<void>((resolve) => {
      const wait = (): void => void (replies.length > 0 ? resolve() : setTimeout(wait, 5));
      wait();
    });
    const reply = replies[0]!;
    assert.equal(reply.t, 'ok');
    assert.deepEqual(Object.keys((reply as { value: object }).value).sort(), ['createRevision', 'key', 'modRevision']);

    const created = await remote.create('/configmaps/default/a', enc('v1'));
    assert.equal(new TextDecoder().decode(created.value), 'v1');
    const updated = await remote.update('/configmaps/default/a', enc('v2'), created.modRevision);
    assert.equal(new TextDecoder().decode(updated.value), 'v2');
    assert.equal(updated.createRevision, created.createRevision);
    assert.ok(updated.modRevision > created.modRevision);
    // The store holds what was written.
    const got = await remote.get('/configmaps/default/a');
    assert.equal(new TextDecoder().decode(got.kv!.value), 'v2');
  } finally {
    raw.port2.close();
    await remote.close();
    server.close();
    await store.close();
    await rm(dir, { recursive: true, force: true });
  }
});
