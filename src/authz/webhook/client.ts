/**
 * Posts one JSON document to the webhook and reads its JSON answer, over
 * HTTPS with the kubeconfig's CA and client certificate, a keep-alive
 * agent, a timeout for the whole exchange and a bound on the answer's size.
 * Errors carry no credential (the token is never in a message).
 */
import http from 'node:http';
import https from 'node:https';
import type { WebhookClientConfig } from './kubeconfig.ts';

/** The most answer bytes read: a review answer is small. */
const MAX_RESPONSE_BYTES = 1 << 20;

export class WebhookCallError extends Error {
  /** Worth another try: the connection failed, timed out, or the server said 429/5xx. */
  readonly retriable: boolean;

  constructor(message: string, retriable: boolean) {
    super(message);
    this.name = 'WebhookCallError';
    this.retriable = retriable;
  }
}

export class WebhookClient {
  readonly #config: WebhookClientConfig;
  readonly #agent: http.Agent;
  readonly #timeoutMs: number;

  constructor(config: WebhookClientConfig, timeoutMs: number) {
    this.#config = config;
    this.#timeoutMs = timeoutMs;
    this.#agent =
      config.url.protocol === 'https:'
        ? new https.Agent({ keepAlive: true, maxSockets: 64, ca: config.ca, cert: config.cert, key: config.key, rejectUnauthorized: !config.insecureSkipTlsVerify })
        : new http.Agent({ keepAlive: true, maxSockets: 64 });
  }

  post(body: unknown): Promise<unknown> {
    const payload = Buffer.from(JSON.stringify(body));
    const url = this.#config.url;
    const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json', 'content-length': String(payload.length) };
    if (this.#config.token !== undefined) headers['authorization'] = `Bearer ${this.#config.token}`;
    const mod = url.protocol === 'https:' ? https : http;
    return new Promise((resolve, reject) => {
      let settled = false;
      const finish = (err: WebhookCallError | null, value?: unknown): void => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        if (err !== null) reject(err);
        else resolve(value);
      };
      const req = mod.request(url, { method: 'POST', headers, agent: this.#agent }, (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (c: Buffer) => {
          size += c.length;
          if (size > MAX_RESPONSE_BYTES) {
            req.destroy();
            finish(new WebhookCallError(`webhook answer larger than ${MAX_RESPONSE_BYTES} bytes`, false));
            return;
          }
          chunks.push(c);
        });
        res.on('error', (e) => finish(new WebhookCallError(`reading the webhook answer: ${e.message}`, true)));
        res.on('end', () => {
          const status = res.statusCode ?? 0;
          if (status < 200 || status >= 300) {
            finish(new WebhookCallError(`webhook answered HTTP ${status}`, status === 429 || status >= 500));
            return;
          }
          try {
            finish(null, JSON.parse(Buffer.concat(chunks).toString('utf8')));
          } catch {
            finish(new WebhookCallError('webhook answer is not JSON', false));
          }
        });
      });
      const timer = setTimeout(() => {
        req.destroy();
        finish(new WebhookCallError(`webhook did not answer within ${this.#timeoutMs} ms`, true));
      }, this.#timeoutMs);
      timer.unref();
      req.on('error', (e) => finish(new WebhookCallError(`calling the webhook: ${e.message}`, true)));
      req.end(payload);
    });
  }

  close(): void {
    this.#agent.destroy();
  }
}
