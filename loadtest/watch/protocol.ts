/** Messages between the benchmark process and its client worker processes (IPC, JSON). */
import type { HistogramSummary } from './histogram.ts';
import type { WatchEncoding, WatchProtocol } from './settings.ts';

/** How a worker reaches the server: TLS to the loopback port, with a bearer token or a client certificate. */
export interface Conn {
  readonly port: number;
  readonly caPem: string;
  readonly token?: string;
  readonly certPem?: string;
  readonly keyPem?: string;
}

export type Request =
  | {
      t: 'watch-open';
      conn: Conn;
      proto: WatchProtocol;
      /** What the watchers ask for (Accept) and parse. */
      encoding: WatchEncoding;
      /** Path with query (watch=1&resourceVersion=...). */
      path: string;
      count: number;
      streamsPerConn: number;
      /** Objects of the run are named `${namePrefix}${seq}`. */
      namePrefix: string;
      connectConcurrency: number;
    }
  | { t: 'level-start'; base: number; count: number }
  | { t: 'progress' }
  /** acks[i]: acknowledgement time (ms, monotonic clock shared by all processes) of write base+i; null if it failed. */
  /** sends[i]: when write base+i was sent (same clock). */
  | { t: 'level-end'; acks: Array<number | null>; sends: Array<number | null> }
  | { t: 'watch-close' }
  | { t: 'storm-prepare'; conn: Conn; count: number; connectConcurrency: number }
  | { t: 'storm-go'; path: string; timeoutMs: number }
  | { t: 'storm-close' };

export interface WatchOpened {
  opened: number;
  failed: number;
  /** First few failure texts. */
  samples: string[];
  ms: number;
}

export interface Progress {
  /** Events of the current step received so far (all watchers). */
  received: number;
  alive: number;
  dropped: number;
  errors: number;
}

export interface LevelResult {
  /** Receipt - acknowledgement. */
  hist: HistogramSummary;
  /** Receipt - send (the writer's request start). */
  histSend: HistogramSummary;
  /** Events of the step received (within the step's seq range, first copy per watcher). */
  received: number;
  /** Expected (watcher, acknowledged write) pairs with no event, for watchers still open / dropped. */
  missingAlive: number;
  missingDropped: number;
  duplicates: number;
  /** Events outside the step's seq range (from an earlier step, arriving late). */
  outOfStep: number;
  firstRecv: number;
  lastRecv: number;
  alive: number;
  /** Watchers whose stream ended or failed since the watch was opened (cumulative). */
  dropped: number;
  errors: number;
  samples: string[];
}

export interface WatchClosed {
  dropped: number;
  errors: number;
  samples: string[];
  /** Bytes received by all watchers since opened. */
  bytes: number;
  /** Events of the run's objects received by all watchers since opened (steps run again and late copies included), for bytes per event. */
  events: number;
}

export interface StormPrepared {
  ready: number;
  failed: number;
  samples: string[];
}

export interface StormResult {
  /** Per client: ms from the go signal to the last byte, or to the failure. */
  ms: number[];
  /** Per client: HTTP status, 0 on a transport error. */
  status: number[];
  bytes: number[];
  samples: string[];
}

export type Reply = { id: number; ok: true; result: unknown } | { id: number; ok: false; error: string };
