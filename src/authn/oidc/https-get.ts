/**
 * GETs a JSON document from the identity provider over TLS, trusting
 * --oidc-ca-file (or the host's roots when none is given). Discovery and
 * key sets are small; the answer is capped so a misbehaving provider cannot
 * make the server buffer without bound, and every call has a deadline.
 */
import https from 'node:https';

/** The original's HTTP client timeout for the provider. */
export const PROVIDER_TIMEOUT_MS = 30_000;
/** Far above any real discovery document or key set. */
export const MAX_DOCUMENT_BYTES = 1024 * 1024;

export interface JsonGetterOptions {
  /** PEM roots; the host's default roots when undefined. */
  readonly ca?: string | undefined;
  readonly timeoutMs?: number;
  readonly maxBytes?: number;
}

export class JsonGetter {
  readonly #agent: https.Agent;
  readonly #timeoutMs: number;
  readonly #maxBytes: number;

  constructor(options: JsonGetterOptions = {}) {
    // minVersion TLS 1.2: the spec asks for non-obsolete ciphers from the provider.
    this.#agent = new https.Agent({ keepAlive: true, maxSockets: 4, minVersion: 'TLSv1.2', ...(options.ca !== undefined ? { ca: options.ca } : {}) });
    this.#timeoutMs = options.timeoutMs ?? PROVIDER_TIMEOUT_MS;
    this.#maxBytes = options.maxBytes ?? MAX_DOCUMENT_BYTES;
  }

  /** The parsed JSON body of a 200 answer; rejects on anything else with a message naming the URL. */
  get(url: string): Promise<unknown> {
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      return Promise.reject(new Error(`invalid URL ${JSON.stringify(url)}`));
    }
    if (parsed.protocol !== 'https:') return Promise.reject(new Error(`refusing ${JSON.stringify(url)}: https required`));
    return new Promise((resolve, reject) => {
      const req = https.get(parsed, { agent: this.#agent, headers: { accept: 'application/json' }, timeout: this.#timeoutMs }, (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > this.#maxBytes) {
            req.destroy(new Error(`${url}: answer larger than ${this.#maxBytes} bytes`));
            return;
          }
          chunks.push(chunk);
        });
        res.on('error', reject);
        res.on('end', () => {
          if (res.statusCode !== 200) {
            reject(new Error(`${url}: ${res.statusCode ?? 0} ${res.statusMessage ?? ''}`.trimEnd()));
            return;
          }
          try {
            resolve(JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown);
          } catch {
            reject(new Error(`${url}: answer is not JSON`));
          }
        });
      });
      req.on('timeout', () => req.destroy(new Error(`${url}: no answer within ${this.#timeoutMs} ms`)));
      req.on('error', (err) => reject(new Error(`${url}: ${err.message}`)));
    });
  }

  close(): void {
    this.#agent.destroy();
  }
}
