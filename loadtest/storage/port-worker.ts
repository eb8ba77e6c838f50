/**
 * Worker for the MessagePort ceilings, hosted by a one-thread Piscina pool
 * with atomics disabled (as the shard threads are), so that its event loop
 * serves the port between tasks. Each task brings a MessagePort of its own:
 * - rpc: answer each request (a number, or an array of numbers) with a 1 KiB
 *   Uint8Array each (an array of them for an array request);
 * - stream: post `count` small messages, `batch` per postMessage;
 * - concat: on each request n, join n 1 KiB buffers into one and transfer it.
 */
import type { MessagePort } from 'node:worker_threads';

export type PortWorkerCommand =
  | { kind: 'rpc'; port: MessagePort }
  | { kind: 'stream'; port: MessagePort; count: number; batch: number }
  | { kind: 'concat'; port: MessagePort; max: number };

const KIB = 1024;
/** Distinct buffers: structured clone copies a buffer referenced twice in one message only once. */
const answers = Array.from({ length: 64 }, (_, i) => new Uint8Array(KIB).fill(i));

function rpc(port: MessagePort): void {
  port.on('message', (req: number | number[]) => {
    if (typeof req === 'number') port.postMessage(answers[0]);
    else port.postMessage(req.map((_, i) => answers[i % answers.length]));
  });
}

function stream(port: MessagePort, count: number, batch: number): void {
  port.once('message', () => {
    if (batch <= 1) {
      for (let i = 0; i < count; i++) port.postMessage({ seq: i });
    } else {
      for (let i = 0; i < count; i += batch) {
        const msgs: Array<{ seq: number }> = [];
        for (let j = i; j < Math.min(count, i + batch); j++) msgs.push({ seq: j });
        port.postMessage(msgs);
      }
    }
  });
  port.postMessage('ready');
}

function concat(port: MessagePort, max: number): void {
  const items = Array.from({ length: max }, (_, i) => new Uint8Array(KIB).fill(i & 0xff));
  port.on('message', (n: number) => {
    const out = new Uint8Array(new ArrayBuffer(n * KIB + Math.max(0, n - 1)));
    let at = 0;
    for (let i = 0; i < n; i++) {
      if (i > 0) out[at++] = 0x2c;
      out.set(items[i]!, at);
      at += KIB;
    }
    port.postMessage(out, [out.buffer]);
  });
  port.postMessage('ready');
}

export default function portWorker(cmd: PortWorkerCommand): 'ok' {
  switch (cmd.kind) {
    case 'rpc':
      rpc(cmd.port);
      cmd.port.postMessage('ready');
      break;
    case 'stream':
      stream(cmd.port, cmd.count, cmd.batch);
      break;
    case 'concat':
      concat(cmd.port, cmd.max);
      break;
  }
  return 'ok';
}
