/**
 * A real admission webhook on loopback: HTTPS with a throwaway CA (serving
 * certificate for 127.0.0.1, localhost and `<name>.<namespace>.svc` names
 * given), optionally requiring client certificates. Every review is
 * recorded with its headers; answers come from a replaceable function
 * (`hang` never answers, `raw` sends any bytes).
 */
import https from 'node:https';
import type http from 'node:http';
import type net from 'node:net';
import type { TLSSocket } from 'node:tls';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { EKU, issue, x509, type Issued } from '../../authn/support/pki.ts';
import { keyPemOf } from '../../authn/support/tls.ts';

export interface ReviewCall {
  readonly path: string;
  readonly headers: http.IncomingHttpHeaders;
  readonly review: { apiVersion?: string; kind?: string; request: Record<string, unknown> & { uid: string; object?: Record<string, unknown> | null } };
  readonly clientCN: string | undefined;
}

export type ReviewAnswer = { status?: number; body: unknown } | { raw: string; status?: number } | 'hang' | 'reset';

export interface AdmissionWebhookServer {
  readonly port: number;
  /** `https://127.0.0.1:<port><path>` */
  url(p?: string): string;
  readonly ca: Issued;
  readonly caBundle: string;
  readonly dir: string;
  readonly calls: ReviewCall[];
  answer: (call: ReviewCall) => ReviewAnswer | Promise<ReviewAnswer>;
  /** A client certificate of this server's CA (for admission configuration credentials). */
  client(cn: string): Promise<{ certPem: string; keyPem: string }>;
  write(name: string, text: string): Promise<string>;
  close(): Promise<void>;
}

/** The v1 answer for a call. */
export function allow(call: ReviewCall, extra: Record<string, unknown> = {}): ReviewAnswer {
  return { body: { apiVersion: call.review.apiVersion, kind: 'AdmissionReview', response: { uid: call.review.request.uid, allowed: true, ...extra } } };
}

export function deny(call: ReviewCall, status: Record<string, unknown> | undefined, extra: Record<string, unknown> = {}): ReviewAnswer {
  return { body: { apiVersion: call.review.apiVersion, kind: 'AdmissionReview', response: { uid: call.review.request.uid, allowed: false, ...(status ? { status } : {}), ...extra } } };
}

export function patch(call: ReviewCall, ops: unknown[], extra: Record<string, unknown> = {}): ReviewAnswer {
  return allow(call, { patchType: 'JSONPatch', patch: Buffer.from(JSON.stringify(ops)).toString('base64'), ...extra });
}

export async function startAdmissionWebhook(opts: { dnsNames?: string[]; requireClientCert?: boolean; port?: number } = {}): Promise<AdmissionWebhookServer> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'orch-admission-webhook-'));
  const ca = await issue({ subject: 'CN=admission webhook test CA', ca: true });
  const serving = await issue({
    subject: 'CN=webhook',
    issuer: ca,
    eku: [EKU.serverAuth],
    extraExtensions: [
      new x509.SubjectAlternativeNameExtension([
        { type: 'dns', value: 'localhost' },
        ...(opts.dnsNames ?? []).map((value) => ({ type: 'dns' as const, value })),
        { type: 'ip', value: '127.0.0.1' },
      ]),
    ],
  });
  const sockets = new Set<net.Socket>();
  const hung = new Set<http.ServerResponse>();
  const server = https.createServer({
    cert: serving.pem,
    key: await keyPemOf(serving),
    ca: ca.pem,
    requestCert: opts.requireClientCert === true,
    rejectUnauthorized: opts.requireClientCert === true,
  });
  server.on('connection', (s: net.Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  const hook: AdmissionWebhookServer = {
    port: 0,
    url: (p = '/admit') => `https://127.0.0.1:${hook.port}${p}`,
    ca,
    caBundle: Buffer.from(ca.pem).toString('base64'),
    dir,
    calls: [],
    answer: (call) => allow(call),
    client: async (cn) => {
      const c = await issue({ subject: `CN=${cn}`, issuer: ca, eku: [EKU.clientAuth] });
      return { certPem: c.pem, keyPem: await keyPemOf(c) };
    },
    write: async (name, text) => {
      const p = path.join(dir, name);
      await fs.writeFile(p, text, { mode: 0o600 });
      return p;
    },
    close: () =>
      new Promise((resolve) => {
        for (const r of hung) r.destroy();
        for (const s of sockets) s.destroy();
        server.close(() => {
          void fs.rm(dir, { recursive: true, force: true }).then(() => resolve());
        });
      }),
  };
  server.on('request', (req: http.IncomingMessage, res: http.ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      void (async () => {
        let review: ReviewCall['review'];
        try {
          review = JSON.parse(Buffer.concat(chunks).toString('utf8')) as ReviewCall['review'];
        } catch {
          res.writeHead(400).end();
          return;
        }
        const peer = (req.socket as TLSSocket).getPeerCertificate?.();
        const call: ReviewCall = { path: req.url ?? '', headers: req.headers, review, clientCN: peer && typeof peer.subject?.CN === 'string' ? peer.subject.CN : undefined };
        hook.calls.push(call);
        const a = await hook.answer(call);
        if (a === 'hang') {
          hung.add(res);
          return;
        }
        if (a === 'reset') {
          // As a server closing a kept-alive connection the client just reused.
          req.socket.destroy();
          return;
        }
        const body = 'raw' in a ? a.raw : JSON.stringify(a.body);
        res.writeHead(a.status ?? 200, { 'content-type': 'application/json' }).end(body);
      })();
    });
  });
  await new Promise<void>((resolve) => server.listen(opts.port ?? 0, '127.0.0.1', resolve));
  (hook as { port: number }).port = (server.address() as net.AddressInfo).port;
  return hook;
}
