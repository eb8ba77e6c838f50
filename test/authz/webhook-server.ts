/**
 * A real HTTPS authorization webhook on loopback for tests: its own CA, a
 * serving certificate for 127.0.0.1, and a client certificate it requires
 * (TLS client-cert auth). Every POST is counted and answered by `answer`.
 * Writes a kubeconfig for the API server that points at it.
 */
import https from 'node:https';
import fs from 'node:fs/promises';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { webcrypto } from 'node:crypto';
import { EKU, issue, x509 } from '../authn/support/pki.ts';

export interface Review {
  apiVersion: string;
  kind: string;
  spec: Record<string, unknown>;
}

export type Answer = (review: Review) => { status?: number; body?: unknown; delayMs?: number };

export interface WebhookServer {
  readonly url: string;
  readonly kubeconfigPath: string;
  /** Reviews received, in order. */
  readonly reviews: Review[];
  /** Client certificate subjects seen (proves client-cert auth). */
  readonly clients: string[];
  answer: Answer;
  close(): Promise<void>;
}

async function keyPem(key: webcrypto.CryptoKey): Promise<string> {
  const der = Buffer.from(await webcrypto.subtle.exportKey('pkcs8', key));
  return `-----BEGIN PRIVATE KEY-----\n${der.toString('base64').replace(/(.{64})/g, '$1\n').replace(/\n$/, '')}\n-----END PRIVATE KEY-----\n`;
}

export async function startWebhookServer(dir: string, answer: Answer): Promise<WebhookServer> {
  const ca = await issue({ subject: 'CN=webhook-ca', ca: true });
  const san = new x509.SubjectAlternativeNameExtension([{ type: 'ip', value: '127.0.0.1' }, { type: 'dns', value: 'localhost' }]);
  const serving = await issue({ subject: 'CN=127.0.0.1', issuer: ca, eku: [EKU.serverAuth], extraExtensions: [san] });
  const client = await issue({ subject: 'CN=orch-apiserver', issuer: ca, eku: [EKU.clientAuth] });
  const reviews: Review[] = [];
  const clients: string[] = [];
  const state = { answer };
  const server = https.createServer(
    { cert: serving.pem, key: await keyPem(serving.keys.privateKey), ca: ca.pem, requestCert: true, rejectUnauthorized: true },
    (req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const peer = (req.socket as import('node:tls').TLSSocket).getPeerCertificate();
        clients.push(String(peer.subject?.CN ?? ''));
        let review: Review;
        try {
          review = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Review;
        } catch {
          res.writeHead(400).end();
          return;
        }
        reviews.push(review);
        const a = state.answer(review);
        const send = (): void => {
          if (res.destroyed) return;
          res.writeHead(a.status ?? 200, { 'content-type': 'application/json' }).end(a.body === undefined ? '' : JSON.stringify(a.body));
        };
        if (a.delayMs !== undefined) setTimeout(send, a.delayMs).unref();
        else send();
      });
    },
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `https://127.0.0.1:${(server.address() as AddressInfo).port}/authorize`;
  await fs.writeFile(path.join(dir, 'webhook-ca.crt'), ca.pem);
  await fs.writeFile(path.join(dir, 'client.crt'), client.pem);
  await fs.writeFile(path.join(dir, 'client.key'), await keyPem(client.keys.privateKey), { mode: 0o600 });
  const kubeconfigPath = path.join(dir, 'webhook.kubeconfig');
  await fs.writeFile(
    kubeconfigPath,
    [
      'apiVersion: v1',
      'kind: Config',
      'clusters:',
      '- name: authz',
      '  cluster:',
      `    server: ${JSON.stringify(url)}`,
      '    certificate-authority: webhook-ca.crt',
      'users:',
      '- name: apiserver',
      '  user:',
      '    client-certificate: client.crt',
      '    client-key: client.key',
      'contexts:',
      '- name: webhook',
      '  context: {cluster: authz, user: apiserver}',
      'current-context: webhook',
      '',
    ].join('\n'),
    { mode: 0o600 },
  );
  return {
    url,
    kubeconfigPath,
    reviews,
    clients,
    get answer() {
      return state.answer;
    },
    set answer(a: Answer) {
      state.answer = a;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A SubjectAccessReview answer of the version asked. */
export function sar(review: Review, status: Record<string, unknown>): { body: unknown } {
  return { body: { apiVersion: review.apiVersion, kind: 'SubjectAccessReview', status } };
}
