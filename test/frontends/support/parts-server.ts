/**
 * A front end serving the parts handler in a process of its own, so a test
 * can watch that process's memory alone: in the test's process, memory an
 * earlier test freed is reused without showing in RSS, and would hide
 * buffering.
 *
 * argv: <uws|node|node-js> <certFile> <keyFile>. Sends { port } once listening, then
 * answers every { id } message with a Measurement.
 */
import { readFileSync } from 'node:fs';
import type { Frontend } from '../../../src/frontends/frontend.ts';
import { startNodeFrontend } from '../../../src/frontends/node-http2.ts';
import { startUwsFrontend } from '../../../src/frontends/uws.ts';
import { makePartsHandler, partsOf, PartsRecorder } from './parts-handler.ts';

export interface Measurement {
  rss: number;
  /** bufferedBytes of response `id`; -1 before it was seen. */
  buffered: number;
  closeCalls: number;
  errors: number;
}

const [kind, certFile, keyFile] = process.argv.slice(2) as [string, string, string];
const recorder = new PartsRecorder();
partsOf('big'); // allocated before the first measurement
const handler = makePartsHandler(recorder);
const frontend: Frontend =
  kind === 'uws'
    ? await startUwsFrontend({ host: '127.0.0.1', port: 0, tls: { certFile, keyFile }, handler, onError: recorder.onError })
    : await startNodeFrontend({
        host: '127.0.0.1',
        port: 0,
        tls: { cert: readFileSync(certFile), key: readFileSync(keyFile) },
        handler,
        onError: recorder.onError,
        http2Engine: kind === 'node-js' ? 'js' : 'nghttp2',
      });

const gc = (globalThis as { gc?: () => void }).gc;
process.on('message', (msg: { id?: string; gc?: boolean }) => {
  if (msg.gc) gc?.();
  const rec = msg.id === undefined ? undefined : recorder.records.get(msg.id);
  const reply: Measurement = {
    rss: process.memoryUsage().rss,
    buffered: rec === undefined ? -1 : rec.res.bufferedBytes,
    closeCalls: rec?.closeCalls ?? 0,
    errors: recorder.errors.length,
  };
  process.send!(reply);
});
process.on('disconnect', () => {
  void frontend.close().then(() => process.exit(0));
});
process.send!({ port: frontend.port });
