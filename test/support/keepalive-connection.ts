/**
 * One keep-alive TLS connection with a bearer token: every request on it
 * goes to the serving thread that accepted it (with several serving threads
 * the kernel spreads connections, not requests).
 */
import https from 'node:https';

export interface ConnectionAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  raw: Buffer;
  text: string;
}

export class KeepAliveConnection {
  protected readonly agent = new https.Agent({ keepAlive: true, maxSockets: 1 });

  constructor(
    protected readonly port: number,
    protected readonly ca: Buffer,
    protected readonly token: string,
  ) {}

  /** A JSON body is sent as such; the answer is read whole. */
  request(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<ConnectionAnswer> {
    return new Promise((resolve, reject) => {
      const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
      const req = https.request(
        {
          host: '127.0.0.1',
          port: this.port,
          method,
          path,
          agent: this.agent,
          ca: this.ca,
          servername: 'localhost',
          headers: {
            accept: 'application/json',
            authorization: `Bearer ${this.token}`,
            ...(payload ? { 'content-type': 'application/json', 'content-length': String(payload.length) } : {}),
            ...headers,
          },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => {
            const raw = Buffer.concat(chunks);
            resolve({ status: res.statusCode ?? 0, headers: res.headers, raw, text: raw.toString('utf8') });
          });
          res.on('error', reject);
        },
      );
      req.on('error', reject);
      req.end(payload);
    });
  }

  close(): void {
    this.agent.destroy();
  }
}
