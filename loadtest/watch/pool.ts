/**
 * The client worker processes (worker.ts), forked with IPC, each answering
 * requests by id. Every worker is SIGKILLed when this process exits; a worker
 * also leaves on its own when the IPC channel closes.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { Reply, Request } from './protocol.ts';

const WORKER = fileURLToPath(new URL('./worker.ts', import.meta.url));
const live = new Set<ChildProcess>();
process.once('exit', () => {
  for (const c of live) c.kill('SIGKILL');
});

export class Worker {
  readonly #child: ChildProcess;
  readonly #pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  #nextId = 1;
  #exited: string | null = null;

  constructor(readonly index: number) {
    this.#child = fork(WORKER, [], { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    live.add(this.#child);
    this.#child.on('message', (raw) => {
      const r = raw as Reply;
      const p = this.#pending.get(r.id);
      if (!p) return;
      this.#pending.delete(r.id);
      if (r.ok) p.resolve(r.result);
      else p.reject(new Error(`worker ${index}: ${r.error}`));
    });
    this.#child.on('exit', (code, signal) => {
      live.delete(this.#child);
      this.#exited = `worker ${index} exited (code ${code}, signal ${signal})`;
      for (const p of this.#pending.values()) p.reject(new Error(this.#exited));
      this.#pending.clear();
    });
  }

  get pid(): number {
    return this.#child.pid ?? 0;
  }

  call<T>(msg: Request, timeoutMs = 300_000): Promise<T> {
    if (this.#exited) return Promise.reject(new Error(this.#exited));
    const id = this.#nextId++;
    return new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#pending.delete(id);
        reject(new Error(`worker ${this.index}: no answer to ${msg.t} within ${timeoutMs} ms`));
      }, timeoutMs);
      this.#pending.set(id, {
        resolve: (v) => {
          clearTimeout(timer);
          resolve(v as T);
        },
        reject: (e) => {
          clearTimeout(timer);
          reject(e);
        },
      });
      this.#child.send({ id, msg });
    });
  }

  kill(): void {
    this.#child.kill('SIGKILL');
  }
}

export class WorkerPool {
  readonly workers: Worker[];

  constructor(n: number) {
    this.workers = Array.from({ length: n }, (_, i) => new Worker(i));
  }

  get pids(): number[] {
    return this.workers.map((w) => w.pid);
  }

  /** Splits `total` into near-equal shares, one per worker (multiples of `unit` where possible). */
  split(total: number, unit = 1): number[] {
    const units = Math.ceil(total / unit);
    const n = this.workers.length;
    const shares = Array.from({ length: n }, (_, i) => Math.floor(units / n) + (i < units % n ? 1 : 0)).map((u) => u * unit);
    // The last non-empty share takes the remainder off (total need not be a multiple of unit).
    let excess = shares.reduce((a, b) => a + b, 0) - total;
    for (let i = n - 1; i >= 0 && excess > 0; i--) {
      const take = Math.min(excess, shares[i]!);
      shares[i]! -= take;
      excess -= take;
    }
    return shares;
  }

  all<T>(msg: Request | ((w: Worker) => Request | null), timeoutMs?: number): Promise<T[]> {
    return Promise.all(
      this.workers.map((w) => {
        const m = typeof msg === 'function' ? msg(w) : msg;
        return m === null ? Promise.resolve(null as T) : w.call<T>(m, timeoutMs);
      }),
    );
  }

  kill(): void {
    for (const w of this.workers) w.kill();
  }
}
