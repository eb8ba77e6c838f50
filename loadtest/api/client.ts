/**
 * The load generator's clients, over TLS with the bearer token and the
 * generated CA: HTTP/1.1 keep-alive through an https.Agent (uWS port or the
 * node secure port), and HTTP/2 with multiplexed streams on one connection
 * (node secure port).
 */
import https from 'node:https';
import http2 from 'node:http2';

export interface Reply {
  readonly status: number;
  /** Bytes of the response body received. */
  readonly bytes: number;
  /** The body when asked for, or when the status is not 2xx (for error reports). */
  readonly body: Buffer | null;
}

export interface ApiClient {
  readonly label: string;
  request(method: string, path: string, body?: Buffer | null, keepBody?: boolean): Promise<Reply>;
  close(): Promise<void>;
}

export interface ClientOptions {
  readonly maxSockets?: number;
  readonly timeoutMs?: number;
}

export class H1Client implements ApiClient {
  readonly #agent: https.Agent;
  readonly #port: number;
  readonly #auth: string;
  readonly #timeoutMs: number;

  constructor(
    readonly label: string,
    port: number,
    ca: Buffer,
    token: string,
    opts: ClientOptions = {},
  ) {
    this.#port = port;
    this.#auth = `Bearer ${token}`;
    this.#timeoutMs = opts.timeoutMs ?? 60_000;
    this.#agent = new https.Agent({ keepAlive: true, maxSockets: opts.maxSockets ?? 32, ca });
  }

  request(method: string, path: string, body: Buffer | null = null, keepBody = false): Promise<Reply> {
    return new Promise<Reply>((resolve, reject) => {
      const headers: Record<string, string | number> = { authorization: this.#auth, accept: 'application/json' };
      if (body) {
        headers['content-type'] = 'application/json';
        headers['content-length'] = body.length;
      }
      const req = https.request({ host: '127.0.0.1', port: this.#port, method, path, agent: this.#agent, headers }, (res) => {
        const status = res.statusCode ?? 0;
        const keep = keepBody || status < 200 || status >= 300;
        const chunks: Buffer[] = [];
        let bytes = 0;
        res.on('data', (c: Buffer) => {
          bytes += c.length;
          if (keep) chunks.push(c);
        });
        res.on('end', () => resolve({ status, bytes, body: keep ? Buffer.concat(chunks) : null }));
        res.on('error', reject);
        res.on('aborted', () => reject(new Error(`${method} ${path}: response aborted`)));
      });
      req.setTimeout(this.#timeoutMs, () => req.destroy(new Error(`${method} ${path}: no answer within ${this.#timeoutMs} ms`)));
      req.on('error', reject);
      req.end(body ?? undefined);
    });
  }

  async close(): Promise<void> {
    this.#agent.destroy();
  }
}

/** One HTTP/2 connection, requests multiplexed as streams on it. */
export class H2Client implements ApiClient {
  readonly #session: http2.ClientHttp2Session;
  readonly #auth: string;
  readonly #timeoutMs: number;
  #error: Error | null = null;

  private constructor(
    readonly label: string,
    session: http2.ClientHttp2Session,
    token: string,
    timeoutMs: number,
  ) {
    this.#session = session;
    this.#auth = `Bearer ${token}`;
    this.#timeoutMs = timeoutMs;
    session.on('error', (err: Error) => (this.#error = err));
  }

  static async connect(label: string, port: number, ca: Buffer, token: string, opts: ClientOptions = {}): Promise<H2Client> {
    // Receive windows like client-go's (Go's http2: 4 MiB per stream, 1 GiB per
    // connection), so that large LISTs are not held back by flow control.
    const session = http2.connect(`https://127.0.0.1:${port}`, { ca, settings: { initialWindowSize: 4 << 20 } });
    await new Promise<void>((resolve, reject) => {
      session.once('connect', () => resolve());
      session.once('error', reject);
    });
    session.setLocalWindowSize(1 << 30);
    return new H2Client(label, session, token, opts.timeoutMs ?? 60_000);
  }

  request(method: string, path: string, body: Buffer | null = null, keepBody = false): Promise<Reply> {
    if (this.#error) return Promise.reject(this.#error);
    return new Promise<Reply>((resolve, reject) => {
      const headers: http2.OutgoingHttpHeaders = {
        ':method': method,
        ':path': path,
        authorization: this.#auth,
        accept: 'application/json',
      };
      if (body) {
        headers['content-type'] = 'application/json';
        headers['content-length'] = body.length;
      }
      const stream = this.#session.request(headers, { endStream: body === null });
      let status = 0;
      let keep = keepBody;
      const chunks: Buffer[] = [];
      let bytes = 0;
      stream.on('response', (h) => {
        status = Number(h[':status'] ?? 0);
        if (status < 200 || status >= 300) keep = true;
      });
      stream.on('data', (c: Buffer) => {
        bytes += c.length;
        if (keep) chunks.push(c);
      });
      stream.on('end', () => resolve({ status, bytes, body: keep ? Buffer.concat(chunks) : null }));
      stream.on('error', reject);
      stream.setTimeout(this.#timeoutMs, () => stream.close(http2.constants.NGHTTP2_CANCEL));
      stream.on('close', () => {
        if (stream.rstCode !== http2.constants.NGHTTP2_NO_ERROR) reject(new Error(`${method} ${path}: stream closed with code ${stream.rstCode}`));
      });
      if (body) stream.end(body);
    });
  }

  async close(): Promise<void> {
    await new Promise<void>((resolve) => {
      if (this.#session.closed || this.#session.destroyed) return resolve();
      const t = setTimeout(() => {
        this.#session.destroy();
        resolve();
      }, 2000);
      this.#session.close(() => {
        clearTimeout(t);
        resolve();
      });
    });
  }
}
