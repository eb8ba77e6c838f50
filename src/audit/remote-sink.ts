/**
 * Audit across serving threads: one thread (the main one) owns the backends,
 * so a log file has one writer; the front-end worker threads send their
 * events over a MessagePort. In batch mode a thread posts what a turn of its
 * event loop produced as one message; with a blocking backend each event is
 * acknowledged once written (or refused by a blocking-strict backend).
 *
 * At shutdown a worker's sink posts what it holds and waits for the owning
 * thread to acknowledge a last, empty message: messages on one port arrive in
 * order, so by then every event of the worker is in the owning thread's
 * backends (or their buffers, which the server flushes after the workers
 * stopped) and the worker may end.
 */
import type { MessagePort } from 'node:worker_threads';
import { jsonEntry, type AuditEntry } from './entry.ts';
import { buffersOf, recycle, transferList, type EncodedLines } from './lines.ts';
import { EVENT_QUEUED, type AuditSink, type LocalAuditSink } from './sink.ts';

/** Events cross as their JSON: a string is copied, an object graph would be walked and rebuilt. */
interface EventsMessage {
  readonly events: string[];
  /** A turn's events as encoded JSON lines, their buffers transferred (batch mode to a log alone: lines.ts). */
  readonly lines?: EncodedLines;
  /** Set when the sender waits for an answer (blocking modes). */
  readonly id?: number;
}

interface AckMessage {
  readonly id: number;
  readonly error?: string;
}

/** The owning thread gives back (transfers) line buffers it has written, for the sender's pool. */
interface RecycleMessage {
  readonly recycle: ArrayBuffer[];
}

/** A worker thread's sink: events go to the thread that owns the backends. */
export class RemoteAuditSink implements AuditSink {
  readonly #port: MessagePort;
  readonly #waiting = new Map<number, { resolve: () => void; reject: (err: Error) => void }>();
  #nextId = 1;
  #batch: string[] = [];
  #closed = false;

  /**
   * @param acceptsLines the owning thread's sink takes encoded lines (read
   *   from the same options; were it wrong, the owner decodes them).
   */
  constructor(
    port: MessagePort,
    readonly blocking: boolean,
    readonly acceptsLines = false,
  ) {
    this.#port = port;
    port.on('message', (m: AckMessage | RecycleMessage) => {
      if ('recycle' in m) {
        recycle(m.recycle);
        return;
      }
      const w = this.#waiting.get(m.id);
      if (w === undefined) return;
      this.#waiting.delete(m.id);
      if (m.error === undefined) w.resolve();
      else w.reject(new Error(m.error));
    });
    port.unref();
  }

  process(event: AuditEntry): Promise<void> {
    if (this.#closed) return EVENT_QUEUED;
    if (!this.blocking) {
      if (this.#batch.length === 0) setImmediate(this.#flushNow);
      this.#batch.push(event.json);
      return EVENT_QUEUED;
    }
    const id = this.#nextId++;
    return new Promise<void>((resolve, reject) => {
      this.#waiting.set(id, { resolve, reject });
      const msg: EventsMessage = { id, events: [event.json] };
      this.#port.postMessage(msg);
    });
  }

  /** Sends the lines (their buffers transferred; they come back by a RecycleMessage once written, not by `release`). */
  processLines(lines: EncodedLines): void {
    if (this.#closed || lines.count === 0) return;
    // Posted in order with the string batches of this port: flush those first.
    this.#flush();
    const msg: EventsMessage = { events: [], lines };
    this.#port.postMessage(msg, transferList(lines));
  }

  readonly #flushNow = (): void => this.#flush();

  #flush(): void {
    const events = this.#batch;
    this.#batch = [];
    if (events.length === 0) return;
    const msg: EventsMessage = { events };
    this.#port.postMessage(msg);
  }

  /**
   * Posts what is buffered, then waits (at most `timeoutMs`) until the
   * owning thread has taken every event sent so far. Then closes: requests
   * still waiting for an answer go on.
   */
  async close(timeoutMs = CLOSE_TIMEOUT_MS): Promise<void> {
    if (this.#closed) return;
    this.#flush();
    const id = this.#nextId++;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      new Promise<void>((resolve) => {
        this.#waiting.set(id, { resolve, reject: () => resolve() });
        this.#port.postMessage({ id, events: [] } satisfies EventsMessage);
      }),
      // A timer (not the unref'd port) keeps this thread alive until the answer comes.
      new Promise<void>((resolve) => (timer = setTimeout(resolve, timeoutMs))),
    ]);
    clearTimeout(timer);
    this.#closed = true;
    for (const w of this.#waiting.values()) w.resolve();
    this.#waiting.clear();
  }
}

/** How long a stopping worker waits for the owning thread to take its last events (within the 5 s the main thread gives a stop). */
const CLOSE_TIMEOUT_MS = 2000;

/** The owning thread's end of a worker's channel. */
export function serveRemoteAuditSink(port: MessagePort, sink: LocalAuditSink): void {
  port.on('message', (m: EventsMessage) => {
    if (!Array.isArray(m?.events)) return;
    if (m.lines !== undefined) {
      const lines = m.lines;
      sink.processLines(lines, () => {
        // Written: the buffers go back to the sender's pool (a stopped worker's port is closed: then GC has them).
        const buffers = buffersOf(lines);
        try {
          port.postMessage({ recycle: buffers } satisfies RecycleMessage, buffers);
        } catch {
          // the port closed meanwhile
        }
      });
      return;
    }
    const done = sink.processMany(m.events.map(jsonEntry));
    const id = m.id;
    if (id === undefined) {
      void done.catch(() => undefined); // batch mode: failures were reported by the sink
      return;
    }
    done.then(
      () => port.postMessage({ id } satisfies AckMessage),
      (err: unknown) => port.postMessage({ id, error: err instanceof Error ? err.message : String(err) } satisfies AckMessage),
    );
  });
  port.unref();
}
