/**
 * HTTP/1.1 keep-alive load over raw TLS sockets: one request in flight per
 * connection (no pipelining, as real clients do), responses framed by
 * Content-Length. Far cheaper per request than node's https client, so one
 * client core can keep a server core busy.
 */
import tls from 'node:tls';
import type { ClientConfig } from './protocol.ts';

export type Record = (micros: number) => void;

export async function runH1(config: ClientConfig, record: Record, onError: () => void, running: () => boolean): Promise<() => void> {
  const request = Buffer.from(`GET ${config.path} HTTP/1.1\r\nHost: 127.0.0.1:${config.port}\r\nAccept: application/json\r\nUser-Agent: loadtest\r\n\r\n`);
  const sockets: tls.TLSSocket[] = [];
  for (let i = 0; i < config.connections; i++) {
    const socket = tls.connect({ host: '127.0.0.1', port: config.port, ca: config.ca, ALPNProtocols: ['http/1.1'] });
    await new Promise<void>((resolve, reject) => socket.once('secureConnect', resolve).once('error', reject));
    socket.setNoDelay(true);
    sockets.push(socket);
    let pending: Buffer = Buffer.alloc(0);
    let started = 0;
    let needed = -1; // total bytes of the response once its head is parsed
    const send = (): void => {
      started = performance.now();
      socket.write(request);
    };
    socket.on('data', (chunk: Buffer) => {
      pending = pending.byteLength === 0 ? chunk : Buffer.concat([pending, chunk]);
      for (;;) {
        if (needed < 0) {
          const end = pending.indexOf('\r\n\r\n');
          if (end < 0) return;
          const head = pending.toString('latin1', 0, end);
          const length = /\r\ncontent-length:\s*(\d+)/i.exec(head);
          if (length === null || !head.startsWith('HTTP/1.1 200')) {
            onError();
            socket.destroy();
            return;
          }
          needed = end + 4 + Number(length[1]);
        }
        if (pending.byteLength < needed) return;
        pending = pending.subarray(needed);
        needed = -1;
        record((performance.now() - started) * 1000);
        if (!running()) return;
        send();
      }
    });
    socket.on('error', onError);
    send();
  }
  return () => sockets.forEach((s) => s.destroy());
}
