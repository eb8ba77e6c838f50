/**
 * ControlChannel: request/reply between the main thread and a front-end
 * worker thread over the worker's own message port (shard channels,
 * metrics, watch revisions, stop). Each side registers handlers by kind;
 * a handler's rejection travels back as an Error with its message.
 */
import type { TransferListItem } from 'node:worker_threads';

export interface ControlPort {
  postMessage(value: unknown, transferList?: readonly TransferListItem[]): void;
  on(event: 'message', listener: (value: unknown) => void): unknown;
}

type Message =
  | { t: 'req'; id: number; kind: string; body: unknown }
  | { t: 'res'; id: number; ok: true; body: unknown }
  | { t: 'res'; id: number; ok: false; error: string };

/** What a handler answers: the reply, and what in it is to be moved rather than copied. */
export interface ControlReply {
  body: unknown;
  transfer?: readonly TransferListItem[] | undefined;
}

export class ControlChannel {
  readonly #port: ControlPort;
  readonly #handlers = new Map<string, (body: unknown) => Promise<ControlReply>>();
  readonly #pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void; timer: NodeJS.Timeout | undefined }>();
  #nextId = 1;
  #closed = false;

  constructor(port: ControlPort) {
    this.#port = port;
    port.on('message', (m) => this.#onMessage(m as Message));
  }

  handle(kind: string, handler: (body: unknown) => Promise<ControlReply>): void {
    this.#handlers.set(kind, handler);
  }

  /** Asks the other side; rejects after `timeoutMs` without an answer (0: never). */
  request<T>(kind: string, body: unknown = null, timeoutMs = 0): Promise<T> {
    if (this.#closed) return Promise.reject(new Error('control channel closed'));
    const id = this.#nextId++;
    return new Promise<T>((resolve, reject) => {
      const timer =
        timeoutMs > 0
          ? setTimeout(() => {
              this.#pending.delete(id);
              reject(new Error(`no answer to ${kind} within ${timeoutMs} ms`));
            }, timeoutMs).unref()
          : undefined;
      this.#pending.set(id, { resolve: resolve as (v: unknown) => void, reject, timer });
      this.#port.postMessage({ t: 'req', id, kind, body } satisfies Message);
    });
  }

  /** Fails what is waiting (the other side is gone). */
  close(reason: string): void {
    this.#closed = true;
    for (const p of this.#pending.values()) {
      clearTimeout(p.timer);
      p.reject(new Error(reason));
    }
    this.#pending.clear();
  }

  #onMessage(m: Message): void {
    if (m === null || typeof m !== 'object') return;
    if (m.t === 'res') {
      const p = this.#pending.get(m.id);
      if (p === undefined) return;
      this.#pending.delete(m.id);
      clearTimeout(p.timer);
      if (m.ok) p.resolve(m.body);
      else p.reject(new Error(m.error));
      return;
    }
    if (m.t !== 'req') return;
    const handler = this.#handlers.get(m.kind);
    const run = handler === undefined ? Promise.reject(new Error(`no handler for ${m.kind}`)) : Promise.resolve().then(() => handler(m.body));
    run.then(
      (reply) => {
        if (!this.#closed) this.#port.postMessage({ t: 'res', id: m.id, ok: true, body: reply.body } satisfies Message, reply.transfer);
      },
      (err: unknown) => {
        if (!this.#closed) this.#port.postMessage({ t: 'res', id: m.id, ok: false, error: err instanceof Error ? err.message : String(err) } satisfies Message);
      },
    );
  }
}
