/**
 * The webhook backend (`--audit-webhook-config-file`): each batch is one
 * POST of an `audit.<suffix>/v1` EventList to the server the kubeconfig
 * names, over HTTPS only (events name users and may carry objects; the
 * kubeconfig's client certificate or token travels too). A failed POST is
 * retried with exponential backoff from `--audit-webhook-initial-backoff`
 * (10s) as the original's webhook client does, for 5xx, 429 and connection
 * errors, until the attempts run out.
 */
import https from 'node:https';
import { loadWebhookKubeconfig, type WebhookConnection } from '../authn/webhook/kubeconfig.ts';
import type { AuditEntry } from './entry.ts';
import type { AuditBackend } from './sink.ts';
import { AUDIT_API_VERSION } from './types.ts';

const LIST_HEAD = `{"kind":"EventList","apiVersion":${JSON.stringify(AUDIT_API_VERSION)},"metadata":{},"items":[`;

export interface WebhookBackendOptions {
  configFile: string;
  initialBackoffMs: number;
  /** Tries per batch (the original's webhook client makes up to 5 with backoff ×1.5). */
  attempts?: number;
  timeoutMs?: number;
}

export class AuditWebhookError extends Error {
  constructor(
    message: string,
    readonly retriable: boolean,
  ) {
    super(message);
  }
}

export class WebhookBackend implements AuditBackend {
  readonly name = 'webhook';
  readonly #conn: WebhookConnection;
  readonly #agent: https.Agent;
  readonly #initialBackoffMs: number;
  readonly #attempts: number;
  readonly #timeoutMs: number;
  #closed = false;

  private constructor(conn: WebhookConnection, opts: WebhookBackendOptions) {
    this.#conn = conn;
    this.#agent = new https.Agent({
      keepAlive: true,
      maxSockets: 4,
      minVersion: 'TLSv1.2',
      ...(conn.caPem !== undefined ? { ca: conn.caPem } : {}),
      ...(conn.clientCertPem !== undefined && conn.clientKeyPem !== undefined ? { cert: conn.clientCertPem, key: conn.clientKeyPem } : {}),
      ...(conn.tlsServerName !== undefined ? { servername: conn.tlsServerName } : {}),
    });
    this.#initialBackoffMs = opts.initialBackoffMs;
    this.#attempts = opts.attempts ?? 5;
    this.#timeoutMs = opts.timeoutMs ?? 30_000;
  }

  static async open(opts: WebhookBackendOptions): Promise<WebhookBackend> {
    return new WebhookBackend(await loadWebhookKubeconfig(opts.configFile), opts);
  }

  async write(events: readonly AuditEntry[]): Promise<void> {
    // The items are the events' JSON as made: joined, not encoded again.
    const body = Buffer.from(`${LIST_HEAD}${events.map((e) => e.json).join(',')}]}`, 'utf8');
    let delay = this.#initialBackoffMs;
    for (let attempt = 1; ; attempt++) {
      try {
        await this.#post(body);
        return;
      } catch (err) {
        const e = err instanceof AuditWebhookError ? err : new AuditWebhookError(String(err), true);
        if (!e.retriable || attempt >= this.#attempts || this.#closed) throw e;
        await new Promise((r) => setTimeout(r, delay).unref());
        delay *= 1.5;
      }
    }
  }

  #post(body: Buffer): Promise<void> {
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      accept: 'application/json',
      'content-length': String(body.length),
    };
    if (this.#conn.token !== undefined) headers['authorization'] = `Bearer ${this.#conn.token}`;
    return new Promise((resolve, reject) => {
      const req = https.request(this.#conn.server, { method: 'POST', agent: this.#agent, headers, timeout: this.#timeoutMs }, (res) => {
        // The answer's body means nothing to us: read and drop it (bounded by the socket, never kept).
        res.resume();
        res.on('error', (err) => reject(new AuditWebhookError(`reading the answer: ${err.message}`, true)));
        res.on('end', () => {
          const status = res.statusCode ?? 0;
          if (status >= 200 && status < 300) resolve();
          else reject(new AuditWebhookError(`audit webhook answered ${status}`, status >= 500 || status === 429));
        });
      });
      req.on('timeout', () => req.destroy(new Error(`no answer within ${this.#timeoutMs} ms`)));
      // The URL is the operator's; error text carries no credential (the token is only in a header).
      req.on('error', (err) => reject(new AuditWebhookError(`audit webhook ${this.#conn.server.host}: ${err.message}`, true)));
      req.end(body);
    });
  }

  async close(): Promise<void> {
    this.#closed = true;
    this.#agent.destroy();
  }
}
