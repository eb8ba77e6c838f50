/**
 * HTTP/2 load with node's client: a few sessions, several streams in flight
 * on each, a new stream as soon as one completes.
 */
import http2 from 'node:http2';
import type { ClientConfig } from './protocol.ts';
import type { Record } from './h1-driver.ts';

export async function runH2(config: ClientConfig, record: Record, onError: () => void, running: () => boolean): Promise<() => void> {
  const sessions: http2.ClientHttp2Session[] = [];
  const headers = { ':path': config.path, accept: 'application/json', 'user-agent': 'loadtest' };
  for (let i = 0; i < config.connections; i++) {
    const session = http2.connect(`https://127.0.0.1:${config.port}`, { ca: config.ca });
    await new Promise<void>((resolve, reject) => session.once('connect', () => resolve()).once('error', reject));
    session.on('error', onError);
    sessions.push(session);
    const loop = (): void => {
      const started = performance.now();
      const stream = session.request(headers, { endStream: true });
      stream.on('response', (h) => {
        if (h[':status'] !== 200) onError();
      });
      stream.on('error', onError);
      stream.resume();
      stream.on('end', () => {
        record((performance.now() - started) * 1000);
        if (running()) loop();
      });
    };
    for (let s = 0; s < config.streamsPerConnection; s++) loop();
  }
  return () => sessions.forEach((s) => s.destroy());
}
