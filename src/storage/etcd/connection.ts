/**
 * The gRPC connection to etcd: client construction, call deadlines, and the
 * retry rule for unary calls.
 *
 * The etcd3 client's default fault handling retries every "recoverable" error
 * three times, writes included. A retried create or compare-and-swap whose
 * first attempt was applied but whose answer was lost would then report
 * AlreadyExists or Conflict for a write that succeeded. So its policies are
 * replaced by pass-throughs and this module retries by itself, like clientv3:
 * reads on any transient failure, writes only when the request provably never
 * left the process.
 */
import { Etcd3, type IOptions, type IDuplexStream, type IWatchRequest, type IWatchResponse } from 'etcd3';
import { classify, neverSent } from './failures.ts';

export interface ConnectionOptions {
  readonly endpoints: readonly string[];
  /** Deadline of each unary call and budget for its retries. */
  readonly requestTimeoutMs: number;
  /** gRPC keepalive ping interval; detects a dead or frozen server under an idle watch. */
  readonly keepaliveMs: number;
}

export type WatchStream = IDuplexStream<IWatchRequest, IWatchResponse>;

// Runs the call once. Typed loosely because the etcd3 client's IPolicy is a
// class-heavy interface of which the connection pool only calls `execute`.
// Async like cockatiel's: the pool relies on synchronous throws becoming
// rejections (markFailed rethrows inside execute and catches the promise).
const passThrough = {
  async execute<T>(fn: (context: { signal: AbortSignal }) => T | Promise<T>): Promise<T> {
    return fn({ signal: new AbortController().signal });
  },
} as unknown as NonNullable<NonNullable<IOptions['faultHandling']>['global']>;

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Etcd3 with its connection pool reachable, to open watch streams with our own metadata. */
class PooledEtcd3 extends Etcd3 {
  get connectionPool() {
    return this.pool;
  }
}

export class EtcdConnection {
  readonly client: PooledEtcd3;

  constructor(readonly options: ConnectionOptions) {
    this.client = new PooledEtcd3(clientOptions(options.endpoints, options));
  }

  /**
   * A new bidirectional watch stream (one per store watch, see watch.ts).
   * Opened with etcd's "hasleader" metadata, as clientv3's WithRequireLeader
   * that kube-apiserver uses for watches: a member cut off from its leader
   * ends the stream instead of silently delivering nothing, and the watch
   * reconnects, possibly to another member.
   */
  openWatchStream(): Promise<WatchStream> {
    return this.client.connectionPool.withConnection('Watch', ({ client, metadata }) => {
      const md = metadata.clone();
      md.set('hasleader', 'true');
      const watch = (client as unknown as { watch(md: unknown, options: object): WatchStream }).watch;
      return watch.call(client, md, {});
    });
  }

  /**
   * Runs a unary call, retrying transient failures within the request
   * timeout: any transient failure when `idempotent`, otherwise only failures
   * where nothing was sent.
   */
  async call<T>(idempotent: boolean, fn: () => Promise<T>, budgetMs = this.options.requestTimeoutMs): Promise<T> {
    const deadline = Date.now() + budgetMs;
    for (let delay = 25; ; delay = Math.min(delay * 2, 500)) {
      try {
        return await fn();
      } catch (err) {
        const retriable = idempotent ? classify(err) === 'unavailable' : neverSent(err);
        if (!retriable || Date.now() + delay >= deadline) throw err;
        await sleep(delay);
      }
    }
  }

  /** The server version of every endpoint, e.g. `['3.4.23']`; asks each member separately. */
  async versions(): Promise<string[]> {
    return Promise.all(
      this.options.endpoints.map(async (endpoint) => {
        const one = new Etcd3(clientOptions([endpoint], this.options));
        try {
          return (await one.maintenance.status()).version;
        } finally {
          one.close();
        }
      }),
    );
  }

  close(): void {
    this.client.close();
  }
}

function clientOptions(endpoints: readonly string[], options: ConnectionOptions): IOptions {
  return {
    hosts: [...endpoints],
    faultHandling: { global: passThrough, host: () => passThrough },
    defaultCallOptions: (context) =>
      context.isStream ? {} : { deadline: Date.now() + options.requestTimeoutMs },
    grpcOptions: {
      // List responses can exceed gRPC's 4 MiB default (kube-apiserver lifts it too).
      'grpc.max_receive_message_length': -1,
      'grpc.max_send_message_length': -1,
      'grpc.keepalive_time_ms': options.keepaliveMs,
      'grpc.keepalive_timeout_ms': Math.max(1000, Math.floor(options.keepaliveMs / 2)),
      // etcd (grpc-go) counts pings on a connection without streams as abuse
      // and closes it; only ping while a call, e.g. a watch, is open.
      'grpc.keepalive_permit_without_calls': 0,
      // Reconnect quickly after an etcd restart; gRPC's default backoff grows to 2 minutes.
      'grpc.initial_reconnect_backoff_ms': 100,
      'grpc.max_reconnect_backoff_ms': 2000,
    },
  };
}
