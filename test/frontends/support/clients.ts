/**
 * Real TLS clients for the front-end tests: node's https (HTTP/1.1) and
 * http2 modules, behind one small interface so the shared suite runs the
 * same checks over every front end and protocol.
 */
import http2 from 'node:http2';
import https from 'node:https';
import type { IncomingHttpHeaders } from 'node:http';
import type { Readable } from 'node:stream';

export interface CallOptions {
  method?: string;
  path: string;
  headers?: Record<string, string | string[]>;
  body?: Uint8Array;
  /** Send the body in pieces without Content-Length (chunked on HTTP/1.1). */
  streamBody?: boolean;
}

export interface OpenResponse {
  status: number;
  headers: IncomingHttpHeaders;
  stream: Readable;
  /** Negotiated ALPN protocol of the connection. */
  alpn: string | false | null | undefined;
  /** Walks away mid-response. */
  cancel(): void;
}

export interface Reply {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
  alpn: string | false | null | undefined;
  json<T = Record<string, unknown>>(): T;
}

export interface Target {
  readonly name: string;
  readonly protocol: 'h2' | 'http/1.1';
  readonly frontend: 'node' | 'uws';
  open(opts: CallOptions): Promise<OpenResponse>;
  close(): void;
}

export interface TlsClientOptions {
  ca: string;
  cert?: string;
  key?: string;
}

export async function call(target: Target, opts: CallOptions): Promise<Reply> {
  const res = await target.open(opts);
  const chunks: Buffer[] = [];
  for await (const chunk of res.stream) chunks.push(chunk as Buffer);
  const body = Buffer.concat(chunks);
  return {
    status: res.status,
    headers: res.headers,
    body,
    alpn: res.alpn,
    json: <T>() => JSON.parse(body.toString('utf8')) as T,
  };
}

function sendBody(out: NodeJS.WritableStream & { end(): void }, opts: CallOptions): void {
  const body = opts.body;
  if (body === undefined) {
    out.end();
    return;
  }
  if (!opts.streamBody) {
    (out as unknown as { end(chunk: Uint8Array): void }).end(body);
    return;
  }
  const piece = Math.max(1, Math.ceil(body.byteLength / 4));
  for (let i = 0; i < body.byteLength; i += piece) out.write(body.subarray(i, i + piece));
  out.end();
}

export function h1Target(name: string, frontend: 'node' | 'uws', port: number, tls: TlsClientOptions, maxSockets = 16): Target {
  // node's https offers no ALPN unless told; offer http/1.1 as real clients do.
  const agent = new https.Agent({ keepAlive: true, maxSockets, ALPNProtocols: ['http/1.1'], ...tls });
  return {
    name,
    protocol: 'http/1.1',
    frontend,
    open(opts) {
      return new Promise((resolve, reject) => {
        const headers: Record<string, string | string[] | number> = { ...opts.headers };
        if (opts.body !== undefined && !opts.streamBody) headers['content-length'] = opts.body.byteLength;
        const req = https.request(
          { host: '127.0.0.1', port, method: opts.method ?? 'GET', path: opts.path, headers, agent },
          (res) => {
            resolve({
              status: res.statusCode ?? 0,
              headers: res.headers,
              stream: res,
              alpn: (res.socket as import('node:tls').TLSSocket).alpnProtocol,
              cancel: () => req.destroy(),
            });
          },
        );
        req.on('error', reject);
        sendBody(req, opts);
      });
    },
    close() {
      agent.destroy();
    },
  };
}

export function h2Target(name: string, port: number, tls: TlsClientOptions): Target & { session: http2.ClientHttp2Session } {
  // node's HTTP/2 *client* keeps counting an upload's unsent bytes against its
  // session memory after the server resets the stream (as it does after
  // answering 413 early); at the default 10 MB a few refused uploads leave
  // the session failing every new stream with ENHANCE_YOUR_CALM. A client
  // bug, not the server's: give the test client room.
  const session = http2.connect(`https://127.0.0.1:${port}`, { ...tls, maxSessionMemory: 1024 });
  session.on('error', () => {});
  return {
    name,
    protocol: 'h2',
    frontend: 'node',
    session,
    open(opts) {
      return new Promise((resolve, reject) => {
        const headers: http2.OutgoingHttpHeaders = { ':method': opts.method ?? 'GET', ':path': opts.path, ...opts.headers };
        if (opts.body !== undefined && !opts.streamBody) headers['content-length'] = opts.body.byteLength;
        const stream = session.request(headers, { endStream: opts.body === undefined });
        stream.on('error', reject);
        stream.on('response', (h) => {
          resolve({
            status: Number(h[':status']),
            headers: h as IncomingHttpHeaders,
            stream,
            alpn: session.alpnProtocol,
            cancel: () => stream.close(http2.constants.NGHTTP2_CANCEL),
          });
        });
        if (opts.body !== undefined) sendBody(stream, opts);
      });
    },
    close() {
      session.destroy();
    },
  };
}
