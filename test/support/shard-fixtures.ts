/**
 * Helpers for tests that drive shards: resource specs, stored objects, and a
 * watch sink that parses JSON frames.
 */
import type { ResourceSpec } from '../../shards/protocol.ts';
import type { WatchSink } from '../../shards/shard-handle.ts';
import type { ShardError } from '../../shards/protocol.ts';
import { serializeForStorage } from '../../src/watchcache/json-codec.ts';

export const testResources: ResourceSpec[] = [
  { groupResource: '/pods', prefix: '/pods/', namespaced: true, kind: 'Pod', apiVersion: 'v1', cacheSize: 100 },
  { groupResource: '/configmaps', prefix: '/configmaps/', namespaced: true, kind: 'ConfigMap', apiVersion: 'v1', cacheSize: 100 },
  { groupResource: '/namespaces', prefix: '/namespaces/', namespaced: false, kind: 'Namespace', apiVersion: 'v1', cacheSize: 100 },
  { groupResource: 'apps/deployments', prefix: '/apps/deployments/', namespaced: true, kind: 'Deployment', apiVersion: 'apps/v1', cacheSize: 100 },
];

export function podBytes(ns: string, name: string, extra: Record<string, unknown> = {}, labels: Record<string, string> = {}): Uint8Array {
  return serializeForStorage({ kind: 'Pod', apiVersion: 'v1', metadata: { name, namespace: ns, labels }, spec: { nodeName: 'n1' }, ...extra });
}

export function configMapBytes(ns: string, name: string, data: Record<string, string>): Uint8Array {
  return serializeForStorage({ kind: 'ConfigMap', apiVersion: 'v1', metadata: { name, namespace: ns }, data });
}

export interface ParsedEvent {
  type: string;
  name: string;
  namespace: string | undefined;
  revision: number;
  object: { metadata: { name?: string; namespace?: string; resourceVersion: string; annotations?: Record<string, string> }; data?: Record<string, string> };
}

/** A WatchSink that parses frames and lets a test wait for them. */
export class CollectingSink implements WatchSink {
  events: ParsedEvent[] = [];
  ended: ShardError | null = null;
  #carry = '';
  #waiters: Array<() => void> = [];

  onFrames(frames: Uint8Array): void {
    const text = this.#carry + Buffer.from(frames).toString('utf8');
    const lines = text.split('\n');
    this.#carry = lines.pop()!;
    for (const line of lines) {
      if (line === '') continue;
      const ev = JSON.parse(line) as { type: string; object: ParsedEvent['object'] };
      this.events.push({
        type: ev.type,
        name: ev.object.metadata.name ?? '',
        namespace: ev.object.metadata.namespace,
        revision: Number(ev.object.metadata.resourceVersion),
        object: ev.object,
      });
    }
    this.#wake();
  }

  onEnd(error: ShardError): void {
    this.ended = error;
    this.#wake();
  }

  #wake(): void {
    const w = this.#waiters;
    this.#waiters = [];
    for (const f of w) f();
  }

  /** Non-bookmark events. */
  get changes(): ParsedEvent[] {
    return this.events.filter((e) => e.type !== 'BOOKMARK');
  }

  async until(pred: () => boolean, what: string, timeoutMs = 15_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!pred()) {
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`timed out waiting for ${what}; have ${this.events.length} events, ended=${JSON.stringify(this.ended)}`);
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, Math.min(left, 100));
        this.#waiters.push(() => {
          clearTimeout(t);
          resolve();
        });
      });
    }
  }
}
