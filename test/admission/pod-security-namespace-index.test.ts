/**
 * PodSecurity's namespace label index: filled by a list, kept by the watch
 * that follows it (added, modified, deleted), falling back to a read on a
 * miss or while not ready, cleared and restarted when the watch ends.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { NamespaceLabelIndex } from '../../src/admission/plugins/pod-security/namespace-index.ts';
import type { GenericStore } from '../../src/registry/generic-store.ts';
import { NAMESPACE } from './pod-security-helpers.ts';

interface Sink {
  onFrames(frames: Uint8Array, revision: number): void;
  onEnd(error: unknown): void;
}

function fakeStore(initial: Array<{ name: string; labels?: Record<string, string> }>) {
  const state = { lists: 0, watches: [] as Array<{ revision: unknown; sink: Sink; closed: boolean }>, items: initial };
  const store = {
    async list() {
      state.lists++;
      const items = state.items.map((n) => JSON.stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: n.name, labels: n.labels } }));
      return { items: new TextEncoder().encode(items.join(',')), count: items.length, revision: 7 };
    },
    router: {
      watch(req: { start: { revision: unknown } }, sink: Sink) {
        const w = { revision: req.start.revision, sink, closed: false };
        state.watches.push(w);
        return { id: state.watches.length, close: () => void (w.closed = true) };
      },
    },
  };
  return { state, store: () => store as unknown as GenericStore };
}

const frame = (events: Array<{ type: string; name: string; labels?: Record<string, string> }>): Uint8Array =>
  new TextEncoder().encode(events.map((e) => JSON.stringify({ type: e.type, object: { metadata: { name: e.name, labels: e.labels } } }) + '\n').join(''));

async function until(pred: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 500 && !pred(); i++) await new Promise((r) => setTimeout(r, 10));
  assert.ok(pred(), what);
}

test('list then watch: reads come from memory, follow changes, and fall back on a miss', async () => {
  const { state, store } = fakeStore([{ name: 'a', labels: { x: '1' } }, { name: 'b' }]);
  const fallbacks: string[] = [];
  const index = new NamespaceLabelIndex(store, NAMESPACE, async (name) => {
    fallbacks.push(name);
    return name === 'fresh' ? { y: '2' } : null;
  });
  try {
    assert.deepEqual(await index.labels('a'), null, 'before the list: fallback');
    await until(() => index.ready, 'index ready');
    assert.equal(state.watches[0]!.revision, 7, 'the watch starts at the list revision');
    assert.deepEqual(await index.labels('a'), { x: '1' });
    assert.deepEqual(await index.labels('b'), {});
    fallbacks.length = 0;
    const sink = state.watches[0]!.sink;
    // A frame may split a line.
    const bytes = frame([{ type: 'MODIFIED', name: 'a', labels: { x: '3' } }, { type: 'ADDED', name: 'c', labels: { z: '1' } }, { type: 'DELETED', name: 'b' }]);
    sink.onFrames(bytes.subarray(0, 10), 8);
    sink.onFrames(bytes.subarray(10), 8);
    assert.deepEqual(await index.labels('a'), { x: '3' });
    assert.deepEqual(await index.labels('c'), { z: '1' });
    assert.deepEqual(fallbacks, []);
    assert.deepEqual(await index.labels('b'), null, 'deleted: asks the fallback');
    assert.deepEqual(await index.labels('fresh'), { y: '2' }, 'not yet delivered: the fallback answers');
    assert.deepEqual(fallbacks, ['b', 'fresh']);

    // The watch ends: the index is cleared, reads fall back, and it starts over with a new list.
    sink.onEnd({ code: 410 });
    assert.equal(index.ready, false);
    fallbacks.length = 0;
    assert.equal(await index.labels('a'), null);
    assert.deepEqual(fallbacks, ['a']);
    state.items = [{ name: 'a', labels: { x: 'new' } }];
    await until(() => index.ready && state.lists === 2, 'restarted');
    assert.deepEqual(await index.labels('a'), { x: 'new' });
    state.watches[0]!.sink.onFrames(frame([{ type: 'MODIFIED', name: 'a', labels: { stale: 'watch' } }]), 9);
    assert.deepEqual(await index.labels('a'), { x: 'new' }, 'frames of the old watch are ignored');

    // An unreadable frame: stop trusting the index.
    state.watches[1]!.sink.onFrames(new TextEncoder().encode('{not json\n'), 10);
    assert.equal(index.ready, false);
  } finally {
    index.close();
  }
  assert.ok(state.watches.every((w) => w.closed || w === state.watches.at(-1)), 'old watches closed');
});
