/**
 * The front ends as the tests start them: on 127.0.0.1, any free port, TLS
 * with the test PKI's server certificate.
 */
import { readFileSync } from 'node:fs';
import type { Frontend } from '../../../src/frontends/node-http2.ts';
import { startNodeFrontend, type Http2Engine, type NodeFrontendOptions } from '../../../src/frontends/node-http2.ts';
import { startUwsFrontend, type UwsFrontendOptions } from '../../../src/frontends/uws.ts';
import type { RequestHandler } from '../../../src/server/http.ts';
import type { ErrorReporter } from '../../../src/frontends/run-handler.ts';

export interface ServerFiles {
  serverCertFile: string;
  serverKeyFile: string;
}

export function startTestUws(files: ServerFiles, handler: RequestHandler, onError: ErrorReporter, uws?: UwsFrontendOptions['uws']): Promise<Frontend> {
  return startUwsFrontend({ host: '127.0.0.1', port: 0, tls: { certFile: files.serverCertFile, keyFile: files.serverKeyFile }, handler, onError, ...(uws ? { uws } : {}) });
}

export function startTestNode(
  files: ServerFiles,
  handler: RequestHandler,
  onError: ErrorReporter,
  extra: { clientCa?: string | Buffer; maxStreamsPerConnection?: number; http2Engine?: Http2Engine } = {},
): Promise<Frontend> {
  const tls: NodeFrontendOptions['tls'] = { cert: readFileSync(files.serverCertFile), key: readFileSync(files.serverKeyFile) };
  if (extra.clientCa !== undefined) tls.clientCa = extra.clientCa;
  return startNodeFrontend({
    host: '127.0.0.1',
    port: 0,
    tls,
    handler,
    onError,
    ...(extra.maxStreamsPerConnection !== undefined ? { maxStreamsPerConnection: extra.maxStreamsPerConnection } : {}),
    ...(extra.http2Engine !== undefined ? { http2Engine: extra.http2Engine } : {}),
  });
}
