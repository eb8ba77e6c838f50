/**
 * A real token-authentication webhook on loopback for the webhook tests:
 * HTTPS with a throwaway CA that requires a client certificate signed by
 * that CA. Each call is recorded (body, the client's certificate CN) and
 * answered by a replaceable function; `hang` never answers.
 */
import https from 'node:https';
import type net from 'node:net';
import type { TLSSocket } from 'node:tls';
import { freePort } from '../../support/test-server.ts';
import { createTestTls, type PemPair, type TestTls } from './tls.ts';

export interface WebhookCall {
  readonly body: Record<string, unknown>;
  readonly clientCN: string | undefined;
}

export type WebhookAnswer = { status: number; body: unknown } | 'hang';

export interface TestWebhook {
  readonly url: string;
  readonly tls: TestTls;
  readonly calls: WebhookCall[];
  /** How the next calls are answered. */
  answer: (review: Record<string, unknown>) => WebhookAnswer;
  /** A kubeconfig for the server: this webhook, its CA, and a client certificate (CN given) of its CA. */
  kubeconfig(options?: { clientCN?: string; inline?: boolean }): Promise<string>;
  close(): Promise<void>;
}

export async function createTestWebhook(): Promise<TestWebhook> {
  const tls = await createTestTls('webhook');
  const port = await freePort();
  const sockets = new Set<net.Socket>();
  const hung = new Set<import('node:http').ServerResponse>();
  const hook: TestWebhook = {
    url: `https://127.0.0.1:${port}/authenticate`,
    tls,
    calls: [],
    answer: () => ({ status: 200, body: {} }),
    kubeconfig: async ({ clientCN = 'orch-apiserver', inline = false } = {}) => {
      const client: PemPair = await tls.client(clientCN);
      const b64 = (s: string): string => Buffer.from(s).toString('base64');
      let clusterCa: string;
      let userLines: string;
      if (inline) {
        clusterCa = `    certificate-authority-data: ${b64(tls.ca.pem)}`;
        userLines = `    client-certificate-data: ${b64(client.certPem)}\n    client-key-data: ${b64(client.keyPem)}`;
      } else {
        await tls.write(`${clientCN}.crt`, client.certPem);
        await tls.write(`${clientCN}.key`, client.keyPem);
        // Relative paths: resolved against the kubeconfig's directory.
        clusterCa = '    certificate-authority: ca.crt';
        userLines = `    client-certificate: ${clientCN}.crt\n    client-key: ${clientCN}.key`;
      }
      const text = [
        'apiVersion: v1',
        'kind: Config',
        'clusters:',
        '- name: authn',
        '  cluster:',
        `    server: ${hook.url}`,
        clusterCa,
        'users:',
        '- name: apiserver',
        '  user:',
        userLines,
        'contexts:',
        '- name: webhook',
        '  context:',
        '    cluster: authn',
        '    user: apiserver',
        'current-context: webhook',
        '',
      ].join('\n');
      return tls.write(`${clientCN}-${inline ? 'inline' : 'files'}.kubeconfig`, text);
    },
    close: () =>
      new Promise((resolve) => {
        for (const r of hung) r.destroy();
        for (const s of sockets) s.destroy();
        server.close(() => void tls.remove().then(() => resolve()));
      }),
  };
  const server = https.createServer({ cert: tls.serving.certPem, key: tls.serving.keyPem, ca: tls.ca.pem, requestCert: true, rejectUnauthorized: true }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>;
      const cn = (req.socket as TLSSocket).getPeerCertificate().subject?.CN;
      hook.calls.push({ body, clientCN: typeof cn === 'string' ? cn : undefined });
      const a = hook.answer(body);
      if (a === 'hang') {
        hung.add(res);
        return;
      }
      res.writeHead(a.status, { 'content-type': 'application/json' });
      res.end(typeof a.body === 'string' ? a.body : JSON.stringify(a.body));
    });
  });
  server.on('connection', (s: net.Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  server.on('secureConnection', (s: net.Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return hook;
}

/** A TokenReview answer of `apiVersion` that authenticates `user`, or rejects with `error`. */
export function reviewAnswer(apiVersion: string, status: Record<string, unknown>): WebhookAnswer {
  return { status: 200, body: { apiVersion, kind: 'TokenReview', status } };
}
