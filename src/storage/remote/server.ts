/**
 * StoreServer serves one Store to other threads, one MessagePort per client.
 * The embedded store can have only one owner (it holds the data directory's
 * lock and its in-memory state), so shards reach it through this.
 */
import type { KeyValue, Store, StoreWatch } from '../interface.ts';
import { isStorageError, storageErrorToWire, type WireStorageError } from '../errors.ts';
import { handOver } from '../handed-over.ts';
import { BatchedPort, type PortLike } from '../../../shards/batched-port.ts';
import type { OkValue, StoreCall, StoreReply, StoreVia, WrittenKey, WrittenVia } from './protocol.ts';
import { storeServerLane } from './wire.ts';

function toWire(err: unknown): WireStorageError | { code: 'Internal'; message: string } {
  if (isStorageError(err)) return storageErrorToWire(err);
  return { code: 'Internal', message: err instanceof Error ? err.message : String(err) };
}

/** What a write's answer carries back: not the value, which the writer has (protocol.ts, WrittenKey). */
function writtenKey(kv: KeyValue): WrittenKey {
  return { key: kv.key, createRevision: kv.createRevision, modRevision: kv.modRevision };
}

export class StoreServer {
  readonly #store: Store;
  readonly #connections = new Set<() => void>();
  /** Connections by the name they were opened with: where routed writes answer (protocol.ts, StoreVia). */
  readonly #named = new Map<string, BatchedPort<StoreReply, StoreCall>>();

  constructor(store: Store) {
    this.#store = store;
  }

  /** Serves the store on `port` until it closes; `name`: routed writes may answer on it (a shard's connection). */
  connect(port: PortLike, name?: string): void {
    const watches = new Map<number, StoreWatch>();
    const out: BatchedPort<StoreReply, StoreCall> = new BatchedPort<StoreReply, StoreCall>(port, (calls) => {
      for (const call of calls) this.#handle(call, out, watches);
    }, storeServerLane);
    const closeAll = (): void => {
      for (const w of watches.values()) w.close();
      watches.clear();
    };
    this.#connections.add(closeAll);
    if (name !== undefined) this.#named.set(name, out);
    port.on('close', () => {
      closeAll();
      this.#connections.delete(closeAll);
      if (name !== undefined && this.#named.get(name) === out) this.#named.delete(name);
    });
  }

  /**
   * A routed write's answer: on the shard's connection, queued after the
   * write's watch events (they go out when it becomes durable, before the
   * write's promise settles), or on the writer's own when the shard's is gone.
   */
  #answerVia(via: StoreVia, id: number, p: Promise<WrittenVia>, out: BatchedPort<StoreReply, StoreCall>): void {
    const send = (m: WrittenVia): void => (this.#named.get(via.conn) ?? out).send(m);
    p.then(send, (err: unknown) => send({ t: 'written', via, id, error: toWire(err) }));
  }

  #handle(call: StoreCall, out: BatchedPort<StoreReply, StoreCall>, watches: Map<number, StoreWatch>): void {
    const s = this.#store;
    switch (call.op) {
      case 'watch': {
        const wid = call.wid;
        const w = s.watch(call.prefix, call.after, {
          onEvents: (events) => out.send({ t: 'events', wid, events }),
          onProgress: (revision) => out.send({ t: 'progress', wid, revision }),
          onError: (error) => {
            watches.delete(wid);
            out.send({ t: 'werr', wid, error: toWire(error) });
          },
        });
        watches.set(wid, w);
        return;
      }
      case 'progress':
        watches.get(call.wid)?.requestProgress();
        return;
      case 'unwatch':
        watches.get(call.wid)?.close();
        watches.delete(call.wid);
        return;
    }
    const id = call.id;
    if ((call.op === 'create' || call.op === 'update' || call.op === 'delete') && call.via !== undefined) {
      // The answer's message made whole in one step (a spread of a partial answer into it cost a microsecond a write).
      const via = call.via;
      const written = (kv: KeyValue): WrittenVia => ({ t: 'written', via, id, value: writtenKey(kv) });
      const answer =
        call.op === 'create'
          ? s.create(call.key, handOver(call.value)).then(written)
          : call.op === 'update'
            ? s.update(call.key, handOver(call.value), call.expected).then(written)
            : s.delete(call.key, call.expected).then((d): WrittenVia => ({ t: 'written', via, id, value: { key: d.prev.key, createRevision: d.prev.createRevision, modRevision: d.revision }, prev: d.prev.value }));
      this.#answerVia(via, id, answer, out);
      return;
    }
    let p: Promise<OkValue>;
    switch (call.op) {
      case 'create':
        p = s.create(call.key, handOver(call.value)).then(writtenKey);
        break;
      case 'update':
        p = s.update(call.key, handOver(call.value), call.expected).then(writtenKey);
        break;
      case 'delete':
        p = s.delete(call.key, call.expected);
        break;
      case 'get':
        p = s.get(call.key, call.revision);
        break;
      case 'range':
        p = s.range(call.prefix, call.options);
        break;
      case 'currentRevision':
        p = s.currentRevision();
        break;
      case 'compactedRevision':
        p = s.compactedRevision();
        break;
      case 'compact':
        p = s.compact(call.revision).then(() => null);
        break;
    }
    p.then(
      (value) => out.send({ t: 'ok', id, value }),
      (err: unknown) => out.send({ t: 'err', id, error: toWire(err) }),
    );
  }

  /** Ends every client's watches (the store itself is closed by its owner). */
  close(): void {
    for (const closeAll of this.#connections) closeAll();
    this.#connections.clear();
  }
}
