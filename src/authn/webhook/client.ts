/**
 * POSTs TokenReviews to the webhook over TLS with the connection file's CA
 * and client certificate, after the original's generic webhook client:
 * one overall deadline per review (30 s, the original's client timeout),
 * and retries with exponential backoff (500 ms, x1.5, jitter 0.2, at most
 * 5 attempts) for answers that suggest trying again (429, 5xx) and for
 * connections reset under us. Answers are capped in size.
 */
import https from 'node:https';
import type { WebhookConnection } from './kubeconfig.ts';

export const DEFAULT_TIMEOUT_MS = 30_000;
export const MAX_ANSWER_BYTES = 4 * 1024 * 1024;

export interface Backoff {
  readonly initialMs: number;
  readonly factor: number;
  readonly jitter: number;
  readonly steps: number;
}

export const DEFAULT_BACKOFF: Backoff = { initialMs: 500, factor: 1.5, jitter: 0.2, steps: 5 };

export interface ReviewClientOptions {
  readonly connection: WebhookConnection;
  readonly timeoutMs?: number;
  readonly backoff?: Backoff;
}

/** Why a review could not be had; never carries the token. */
export class WebhookCallError extends Error {
  constructor(
    message: string,
    /** Whether trying again may help. */
    readonly retriable: boolean,
  ) {
    super(message);
  }
}

const RETRIABLE_STATUS = new Set([429, 500, 502, 503, 504]);
const RETRIABLE_CODES = new Set(['ECONNRESET', 'EPIPE', 'ECONNABORTED']);

function statusReason(body: Buffer): string {
  try {
    const parsed: unknown = JSON.parse(body.subarray(0, 64 * 1024).toString('utf8'));
    if (typeof parsed === 'object' && parsed !== null && typeof (parsed as { message?: unknown }).message === 'string') {
      return `: ${(parsed as { message: string }).message.slice(0, 200)}`;
    }
  } catch {
    // Not a Status: the code says enough.
  }
  return '';
}

export class TokenReviewClient {
  readonly #conn: WebhookConnection;
  readonly #agent: https.Agent;
  readonly #timeoutMs: number;
  readonly #backoff: Backoff;

  constructor(options: ReviewClientOptions) {
    const c = options.connection;
    this.#conn = c;
    this.#agent = new https.Agent({
      keepAlive: true,
      maxSockets: 64,
      minVersion: 'TLSv1.2',
      ...(c.caPem !== undefined ? { ca: c.caPem } : {}),
      ...(c.clientCertPem !== undefined && c.clientKeyPem !== undefined ? { cert: c.clientCertPem, key: c.clientKeyPem } : {}),
      ...(c.tlsServerName !== undefined ? { servername: c.tlsServerName } : {}),
    });
    this.#timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.#backoff = options.backoff ?? DEFAULT_BACKOFF;
  }

  /** The parsed JSON of a 2xx answer to `body`; WebhookCallError otherwise. */
  async review(body: string): Promise<unknown> {
    const deadline = Date.now() + this.#timeoutMs;
    let delay = this.#backoff.initialMs;
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.#post(body, deadline);
      } catch (err) {
        const e = err instanceof WebhookCallError ? err : new WebhookCallError(String(err), false);
        const wait = delay * (1 + Math.random() * this.#backoff.jitter);
        if (!e.retriable || attempt >= this.#backoff.steps || Date.now() + wait >= deadline) throw e;
        await new Promise((r) => setTimeout(r, wait));
        delay *= this.#backoff.factor;
      }
    }
  }

  #post(body: string, deadline: number): Promise<unknown> {
    const remaining = deadline - Date.now();
    if (remaining <= 0) return Promise.reject(new WebhookCallError(`no answer within ${this.#timeoutMs} ms`, false));
    const payload = Buffer.from(body, 'utf8');
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      accept: 'application/json',
      'content-length': String(payload.length),
    };
    if (this.#conn.token !== undefined) headers['authorization'] = `Bearer ${this.#conn.token}`;
    return new Promise((resolve, reject) => {
      let settled = false;
      const fail = (e: WebhookCallError): void => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        reject(e);
      };
      const req = https.request(this.#conn.server, { method: 'POST', agent: this.#agent, headers }, (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > MAX_ANSWER_BYTES) {
            fail(new WebhookCallError(`answer larger than ${MAX_ANSWER_BYTES} bytes`, false));
            req.destroy();
            return;
          }
          chunks.push(chunk);
        });
        res.on('error', (err) => fail(new WebhookCallError(`reading the answer: ${err.message}`, true)));
        res.on('end', () => {
          if (settled) return;
          const status = res.statusCode ?? 0;
          const raw = Buffer.concat(chunks);
          if (status < 200 || status > 299) {
            fail(new WebhookCallError(`webhook answered ${status}${statusReason(raw)}`, RETRIABLE_STATUS.has(status)));
            return;
          }
          let parsed: unknown;
          try {
            parsed = JSON.parse(raw.toString('utf8'));
          } catch {
            fail(new WebhookCallError('answer is not JSON', false));
            return;
          }
          settled = true;
          clearTimeout(timer);
          resolve(parsed);
        });
      });
      const timer = setTimeout(() => {
        fail(new WebhookCallError(`no answer within ${this.#timeoutMs} ms`, false));
        req.destroy();
      }, remaining);
      req.on('error', (err: NodeJS.ErrnoException) => fail(new WebhookCallError(err.message, RETRIABLE_CODES.has(err.code ?? ''))));
      req.end(payload);
    });
  }

  close(): void {
    this.#agent.destroy();
  }
}
