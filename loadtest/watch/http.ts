/**
 * The benchmark process's own client: HTTPS/1.1 keep-alive with the bearer
 * token, any Accept header, the body kept when asked for; plus the shared
 * monotonic clock and a tally of failed requests.
 */
import https from 'node:https';

/** Milliseconds on the monotonic clock, the same in every process on the machine (acks and receipts are compared on it). */
export const nowMs = (): number => Number(process.hrtime.bigint()) / 1e6;

export const JSON_TYPE = 'application/json';
export const PROTOBUF_TYPE = 'application/vnd.orch.protobuf';
/** Content-Type of a Protobuf watch answer. */
export const PROTOBUF_WATCH_TYPE = `${PROTOBUF_TYPE};stream=watch`;

/** Free keep-alive sockets idle this long are closed by the client (below uWS's 10 s idle timeout). */
export const IDLE_SOCKET_MS = 8000;

/** When each socket last finished a response, to say how long a failed request's socket had been idle. */
const lastDone = new WeakMap<object, number>();

export interface Reply {
  readonly status: number;
  readonly bytes: number;
  readonly body: Buffer | null;
  /** Request sent to last byte received (ms). */
  readonly ms: number;
  /** Monotonic time of the last byte. */
  readonly doneAt: number;
  /** CPU seconds this process spent from sending the request to the last byte (all of its work in that time). */
  readonly clientCpu: number;
}

const cpuSeconds = (): number => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e6;
};

export class Http {
  readonly #agent: https.Agent;
  readonly #auth: string;

  constructor(
    readonly port: number,
    ca: Buffer | string,
    token: string,
    maxSockets: number,
    readonly timeoutMs: number,
  ) {
    // Idle keep-alive sockets are dropped after IDLE_SOCKET_MS: the uWS port closes a connection idle for
    // 10-12 s without announcing it (no Keep-Alive: timeout=N header, which Node's agent would honour), and a
    // request sent on such a socket just as the server closes it fails with ECONNRESET.
    this.#agent = new https.Agent({ keepAlive: true, maxSockets, ca, timeout: IDLE_SOCKET_MS });
    this.#auth = `Bearer ${token}`;
  }

  request(method: string, path: string, opts: { body?: Buffer; accept?: string; keepBody?: boolean } = {}): Promise<Reply> {
    return new Promise<Reply>((resolve, reject) => {
      const headers: Record<string, string | number> = { authorization: this.#auth, accept: opts.accept ?? JSON_TYPE };
      if (opts.body) {
        headers['content-type'] = JSON_TYPE;
        headers['content-length'] = opts.body.length;
      }
      const t0 = nowMs();
      const c0 = cpuSeconds();
      const req = https.request({ host: '127.0.0.1', port: this.port, method, path, agent: this.#agent, headers }, (res) => {
        const status = res.statusCode ?? 0;
        const keep = opts.keepBody === true || status < 200 || status >= 300;
        const chunks: Buffer[] = [];
        let bytes = 0;
        res.on('data', (c: Buffer) => {
          bytes += c.length;
          if (keep) chunks.push(c);
        });
        res.on('end', () => {
          const doneAt = nowMs();
          if (req.socket) lastDone.set(req.socket, doneAt);
          const clientCpu = cpuSeconds() - c0;
          resolve({ status, bytes, body: keep ? Buffer.concat(chunks) : null, ms: doneAt - t0, doneAt, clientCpu });
        });
        res.on('error', reject);
        res.on('aborted', () => reject(new Error(`${method} ${path}: response aborted`)));
      });
      let socketNote = 'a new connection';
      req.on('socket', (sock) => {
        const last = lastDone.get(sock);
        if (last !== undefined) socketNote = `a keep-alive connection idle for ${(t0 - last).toFixed(0)} ms`;
      });
      req.setTimeout(this.timeoutMs, () => req.destroy(new Error(`${method} ${path}: no answer within ${this.timeoutMs} ms`)));
      req.on('error', (err: Error) => reject(new Error(`${err.message} (on ${socketNote})`)));
      req.end(opts.body ?? undefined);
    });
  }

  close(): void {
    this.#agent.destroy();
  }
}

/** Failed requests by kind, with a few samples. */
export class Tally {
  readonly byKind = new Map<string, number>();
  readonly samples: string[] = [];
  total = 0;

  add(kind: string, sample: string): void {
    this.total++;
    this.byKind.set(kind, (this.byKind.get(kind) ?? 0) + 1);
    if (this.samples.length < 4) this.samples.push(sample.slice(0, 300));
  }

  describe(): string {
    return [...this.byKind].map(([k, n]) => `${n} ${k}`).join(', ');
  }
}

/** Runs `op(i)` for i in [0, n) with `concurrency` in flight; failures go to the tally, never stop the run. */
export async function fillConcurrently(n: number, concurrency: number, op: (i: number) => Promise<void>): Promise<{ seconds: number }> {
  let next = 0;
  const t0 = nowMs();
  const run = async (): Promise<void> => {
    while (next < n) await op(next++);
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, n) }, run));
  return { seconds: (nowMs() - t0) / 1000 };
}
