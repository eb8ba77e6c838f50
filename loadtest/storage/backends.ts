/**
 * The two storage backends as the benchmark uses them: fresh Stores in this
 * thread for direct measurements, StoreConfigs for a ShardRouter, and for
 * etcd a raw etcd3 client as the reference for what EtcdStore could reach.
 */
import { Etcd3, type IOptions } from 'etcd3';
import type { Store } from '../../src/storage/interface.ts';
import { openOwnedStore, type StoreConfig } from '../../src/storage/config.ts';
import { makeTempDir, removeTempDir } from '../lib/tmp.ts';
import { pidsWithArg, processCpuSeconds, processRss } from '../lib/memory.ts';

export type BackendName = 'embedded' | 'etcd3';
export const BACKENDS: readonly BackendName[] = ['embedded', 'etcd3'];

export interface DirectStore {
  readonly store: Store;
  /** fdatasync count so far, when the backend reports it (embedded). */
  fsyncs(): number | null;
  /** Snapshots written so far, when the backend reports it (embedded). */
  snapshots(): number | null;
  dispose(): Promise<void>;
}

export interface RouterStore {
  readonly config: StoreConfig;
  dispose(): Promise<void>;
}

/** A minimal create-if-absent transaction on the raw etcd3 client. */
export interface RawEtcd {
  create(key: string, value: Uint8Array): Promise<number>;
  close(): void;
}

export interface BenchBackend {
  readonly name: BackendName;
  /** Version or location details for the report. */
  readonly description: string;
  openDirect(tag: string): Promise<DirectStore>;
  routerStore(tag: string): Promise<RouterStore>;
  /** The raw etcd3 client (etcd only). */
  raw(): RawEtcd | null;
  /** RSS of the backend's own process when it has one (etcd), else null. */
  serverRss(): number | null;
  /** CPU seconds used so far by the backend's own process (etcd), else null. */
  serverCpuSeconds(): number | null;
  close(): Promise<void>;
}

// ---- embedded ---------------------------------------------------------------

class EmbeddedBackend implements BenchBackend {
  readonly name = 'embedded' as const;
  readonly description = 'EmbeddedStore (WAL + group commit) in a temp dir';

  async openDirect(tag: string): Promise<DirectStore> {
    const dir = await makeTempDir(`orch-bench-${tag}`);
    // Imported here so that the etcd backend alone never loads it.
    const { EmbeddedStore } = await import('../../src/storage/embedded/index.ts');
    const store = await EmbeddedStore.open({ dir });
    return {
      store,
      fsyncs: () => store.stats().walFsyncs,
      snapshots: () => store.stats().snapshotsWritten,
      dispose: async () => {
        await store.close().catch(() => undefined);
        await removeTempDir(dir);
      },
    };
  }

  async routerStore(tag: string): Promise<RouterStore> {
    const dir = await makeTempDir(`orch-bench-${tag}`);
    return { config: { backend: 'embedded', dataDir: dir }, dispose: () => removeTempDir(dir) };
  }

  raw(): RawEtcd | null {
    return null;
  }

  serverRss(): number | null {
    return null;
  }

  serverCpuSeconds(): number | null {
    return null;
  }

  async close(): Promise<void> {}
}

// ---- etcd3 ------------------------------------------------------------------

interface EtcdServerLike {
  readonly endpoint: string;
  readonly dataDir: string;
  stop(): Promise<void>;
}

type Policy = NonNullable<NonNullable<IOptions['faultHandling']>['global']>;

/** Runs a call once (the client's policy interface is only ever asked to `execute`). */
const passThrough = {
  execute<T>(fn: (context: { signal: AbortSignal }) => T): T {
    return fn({ signal: new AbortController().signal });
  },
} as unknown as Policy;

class EtcdBackend implements BenchBackend {
  readonly name = 'etcd3' as const;
  readonly description: string;
  readonly #server: EtcdServerLike;
  #client: Etcd3 | null = null;
  #seq = 0;

  constructor(server: EtcdServerLike, version: string) {
    this.#server = server;
    this.description = `etcd ${version} at ${server.endpoint} (fsync on)`;
  }

  #prefix(tag: string): string {
    return `/orch-bench/${tag}-${++this.#seq}`;
  }

  async openDirect(tag: string): Promise<DirectStore> {
    const store = await openOwnedStore({ backend: 'etcd3', endpoints: [this.#server.endpoint], prefix: this.#prefix(tag) });
    return { store, fsyncs: () => null, snapshots: () => null, dispose: () => store.close().catch(() => undefined) };
  }

  async routerStore(tag: string): Promise<RouterStore> {
    return {
      config: { backend: 'etcd3', endpoints: [this.#server.endpoint], prefix: this.#prefix(tag) },
      dispose: async () => {},
    };
  }

  raw(): RawEtcd {
    // The bare Txn RPC through the etcd3 client's KV service, with its retry
    // and circuit-breaker policies replaced by pass-throughs (as EtcdStore
    // does), so the difference to EtcdStore is EtcdStore's own work.
    const client = (this.#client ??= new Etcd3({
      hosts: [this.#server.endpoint],
      faultHandling: { global: passThrough, host: () => passThrough },
    }));
    return {
      async create(key: string, value: Uint8Array): Promise<number> {
        const k = Buffer.from(key, 'utf8');
        const res = await client.kv.txn({
          compare: [{ key: k, target: 'Create', result: 'Equal', create_revision: 0 }],
          success: [{ request_put: { key: k, value: Buffer.from(value.buffer, value.byteOffset, value.byteLength) } }],
          failure: [],
        });
        if (!res.succeeded) throw new Error(`raw etcd create of ${key}: already exists`);
        return Number(res.header.revision);
      },
      close: () => {},
    };
  }

  #pid: number | undefined;

  #serverPid(): number | undefined {
    this.#pid ??= pidsWithArg(`--data-dir=${this.#server.dataDir}`)[0];
    return this.#pid;
  }

  serverRss(): number | null {
    const pid = this.#serverPid();
    return pid === undefined ? null : processRss(pid);
  }

  serverCpuSeconds(): number | null {
    const pid = this.#serverPid();
    return pid === undefined ? null : processCpuSeconds(pid);
  }

  async close(): Promise<void> {
    this.#client?.close();
    this.#client = null;
    await this.#server.stop();
  }
}

export async function openBackend(name: BackendName): Promise<BenchBackend> {
  if (name === 'embedded') return new EmbeddedBackend();
  const { startEtcd, etcdVersion } = await import('../../test/support/etcd-server.ts');
  const server = await startEtcd();
  return new EtcdBackend(server, etcdVersion());
}
