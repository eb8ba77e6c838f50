/**
 * ListWatchFeed, the Node graph's source: watch frames split anywhere
 * become events; a malformed frame or the end of the watch resets the
 * listener and starts a new watch from the current state (after a delay,
 * driven here by mocked timers); close() ends it for good.
 */
import { describe, it, mock } from 'node:test';
import assert from 'node:assert/strict';
import { ListWatchFeed, type FeedEvent } from '../../src/authz/node/feed.ts';
import type { GenericStore } from '../../src/registry/generic-store.ts';
import type { ResourceType } from '../../src/registry/resource-type.ts';

interface Sink {
  onFrames(frames: Uint8Array): void;
  onEnd(): void;
}

function fakeStore(): { store: GenericStore; sinks: Sink[]; starts: unknown[]; closed: number } {
  const state = { sinks: [] as Sink[], starts: [] as unknown[], closed: 0 };
  const router = {
    watch(req: { start: unknown }, sink: Sink) {
      state.starts.push(req.start);
      state.sinks.push(sink);
      return { id: state.sinks.length, close: () => void state.closed++ };
    },
  };
  return {
    store: { router } as unknown as GenericStore,
    get sinks() {
      return state.sinks;
    },
    get starts() {
      return state.starts;
    },
    get closed() {
      return state.closed;
    },
  };
}

const rt = { storageResource: '/pods', keyPrefix: '/pods/' } as unknown as ResourceType;
const frame = (s: string): Uint8Array => new TextEncoder().encode(s);

describe('ListWatchFeed', () => {
  it('starts from the current state and joins frames split anywhere', () => {
    const f = fakeStore();
    const events: FeedEvent[] = [];
    const feed = new ListWatchFeed(f.store, rt, (e) => events.push(e));
    feed.start();
    assert.deepEqual(f.starts, [{ kind: 'initial', read: { kind: 'latest' } }]);
    const line = JSON.stringify({ type: 'ADDED', object: { metadata: { name: 'a', namespace: 'ns' } } });
    f.sinks[0]!.onFrames(frame(line.slice(0, 10)));
    f.sinks[0]!.onFrames(frame(`${line.slice(10)}\n{"type":"BOOKMARK","object":{"metadata":{}}}\n{"type":"DELETED","object":{"metadata":{"name":"a"}}}\n`));
    assert.deepEqual(events.map((e) => e.type), ['ADDED', 'DELETED']);
    feed.close();
  });

  it('resets and restarts after a malformed frame or the end of the watch; close stops it', () => {
    mock.timers.enable({ apis: ['setTimeout'] });
    try {
      const f = fakeStore();
      const events: FeedEvent[] = [];
      const feed = new ListWatchFeed(f.store, rt, (e) => events.push(e));
      feed.start();
      f.sinks[0]!.onFrames(frame('not json\n'));
      assert.deepEqual(events.map((e) => e.type), ['reset']);
      assert.equal(f.sinks.length, 1, 'not restarted at once');
      mock.timers.tick(1000);
      assert.equal(f.sinks.length, 2, 'restarted from the current state');
      f.sinks[1]!.onEnd();
      assert.deepEqual(events.map((e) => e.type), ['reset', 'reset']);
      mock.timers.tick(1000);
      assert.equal(f.sinks.length, 3);
      feed.close();
      f.sinks[2]!.onEnd();
      mock.timers.tick(5000);
      assert.equal(f.sinks.length, 3, 'no restart after close');
    } finally {
      mock.timers.reset();
    }
  });
});
