/**
 * Calls one webhook: the target (a URL, or a Service resolved through its
 * Endpoints or EndpointSlices), TLS always (the webhook's caBundle, or the
 * system roots), the per-host credentials of the admission configuration
 * file, and one kept-alive HTTPS agent per target and TLS setting. Each call
 * has the webhook's timeout as a hard deadline (the socket is destroyed
 * when it passes) and sends it as `?timeout=<n>s`, as the original.
 */
import https from 'node:https';
import { createHash } from 'node:crypto';
import { errors, StatusError } from '../../api/status.ts';
import type { ClientConfig } from './hook.ts';
import type { CredentialResolver, WebhookCredentials } from './admission-config.ts';
import type { ServiceResolver } from './resolver.ts';

export const MAX_ANSWER_BYTES = 4 * 1024 * 1024;
/** Agents kept per thread; the least recently used beyond this are closed. */
const MAX_AGENTS = 256;

/** A failure to get an answer (the original's ErrCallingWebhook): failurePolicy decides. */
export class CallError extends Error {
  constructor(
    /** What went wrong, as the original words the reason (never a credential). */
    readonly reason: string,
    /** The status the rejection metric reports (its code). */
    readonly status: StatusError,
  ) {
    super(reason);
  }
}

interface Target {
  readonly url: URL;
  /** TLS server name, when connecting to an address other than the name (services). */
  readonly servername: string | undefined;
  /** Host header, when it is not the URL's (services: `<name>.<namespace>.svc:<port>`). */
  readonly hostHeader: string | undefined;
  readonly credentials: WebhookCredentials | undefined;
}

export class WebhookClients {
  readonly #agents = new Map<string, https.Agent>();
  readonly #resolver: ServiceResolver;
  readonly #credentials: CredentialResolver;

  constructor(resolver: ServiceResolver, credentials: CredentialResolver) {
    this.#resolver = resolver;
    this.#credentials = credentials;
  }

  close(): void {
    for (const a of this.#agents.values()) a.destroy();
    this.#agents.clear();
  }

  async #target(cc: ClientConfig): Promise<Target> {
    if (cc.url !== undefined) {
      let url: URL;
      try {
        url = new URL(cc.url);
      } catch {
        throw new CallError(`could not get REST client: invalid URL ${JSON.stringify(cc.url)}`, errors.badRequest('error getting REST client'));
      }
      if (url.protocol !== 'https:') throw new CallError(`could not get REST client: the webhook URL must be https`, errors.badRequest('error getting REST client'));
      return { url, servername: undefined, hostHeader: undefined, credentials: this.#credentials.forHost(url.host) };
    }
    const svc = cc.service;
    if (svc === undefined) throw new CallError('could not get REST client: no url or service in clientConfig', errors.badRequest('error getting REST client'));
    const serverName = `${svc.name}.${svc.namespace}.svc`;
    let address: { host: string; port: number };
    try {
      address = await this.#resolver.resolve(svc.namespace, svc.name, svc.port);
    } catch (err) {
      throw new CallError(`failed to call webhook: ${err instanceof Error ? err.message : String(err)}`, errors.badRequest('error calling webhook'));
    }
    const host = address.host.includes(':') ? `[${address.host}]` : address.host;
    const p = svc.path === '' ? '/' : svc.path;
    const url = new URL(`https://${host}:${address.port}${p.startsWith('/') ? p : `/${p}`}`);
    return { url, servername: serverName, hostHeader: `${serverName}:${svc.port}`, credentials: this.#credentials.forService(svc.name, svc.namespace, svc.port) };
  }

  /** Agent keys per configuration's client config and host (hashing the CA on every call costs microseconds). */
  readonly #keys = new WeakMap<ClientConfig, Map<string, string>>();

  #agent(target: Target, cc: ClientConfig): https.Agent {
    const c = target.credentials;
    const caPem = cc.caPem;
    const where = `${target.url.host}\u0000${target.servername ?? ''}`;
    let keys = this.#keys.get(cc);
    if (keys === undefined) {
      keys = new Map();
      this.#keys.set(cc, keys);
    }
    let key = keys.get(where);
    if (key === undefined) {
      key = createHash('sha256').update(`${where}\u0000${caPem ?? ''}\u0000${c?.clientCertPem ?? ''}\u0000${c?.clientKeyPem ?? ''}`).digest('base64');
      // A service's addresses change: keep a few per config, not every one ever seen.
      if (keys.size >= 16) keys.clear();
      keys.set(where, key);
    }
    let agent = this.#agents.get(key);
    if (agent !== undefined) {
      // Most recently used last.
      this.#agents.delete(key);
      this.#agents.set(key, agent);
      return agent;
    }
    agent = new https.Agent({
      keepAlive: true,
      maxSockets: 256,
      maxFreeSockets: 64,
      minVersion: 'TLSv1.2',
      ...(caPem !== undefined ? { ca: caPem } : {}),
      ...(c?.clientCertPem !== undefined && c.clientKeyPem !== undefined ? { cert: c.clientCertPem, key: c.clientKeyPem } : {}),
      ...(target.servername !== undefined ? { servername: target.servername } : {}),
    });
    this.#agents.set(key, agent);
    if (this.#agents.size > MAX_AGENTS) {
      const oldest = this.#agents.keys().next().value!;
      this.#agents.get(oldest)!.destroy();
      this.#agents.delete(oldest);
    }
    return agent;
  }

  #send(target: Target, cc: ClientConfig, body: string, timeoutMs: number, retried = false): Promise<unknown> {
    const started = Date.now();
    const payload = Buffer.from(body, 'utf8');
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      accept: 'application/json, */*',
      'content-length': String(payload.length),
    };
    const c = target.credentials;
    if (c?.token !== undefined) headers['authorization'] = `Bearer ${c.token}`;
    else if (c?.username !== undefined && c.username !== '') headers['authorization'] = `Basic ${Buffer.from(`${c.username}:${c.password ?? ''}`).toString('base64')}`;
    if (target.hostHeader !== undefined) headers['host'] = target.hostHeader;
    const href = target.url.href;
    const callError = (why: string): CallError => new CallError(`failed to call webhook: Post "${href}": ${why}`, errors.badRequest('error calling webhook'));
    return new Promise((resolve, reject) => {
      let settled = false;
      const fail = (e: CallError): void => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        reject(e);
      };
      let answered = false;
      const req = https.request(target.url, { method: 'POST', agent: this.#agent(target, cc), headers }, (res) => {
        answered = true;
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > MAX_ANSWER_BYTES) {
            fail(callError(`the answer is larger than ${MAX_ANSWER_BYTES} bytes`));
            req.destroy();
            return;
          }
          chunks.push(chunk);
        });
        res.on('error', (err) => fail(callError(err.message)));
        res.on('end', () => {
          if (settled) return;
          const status = res.statusCode ?? 0;
          const raw = Buffer.concat(chunks).toString('utf8');
          let parsed: unknown;
          try {
            parsed = JSON.parse(raw);
          } catch {
            parsed = undefined;
          }
          if (status < 200 || status > 299) {
            const st = asStatus(parsed, status);
            fail(new CallError(`failed to call webhook: ${st.message}`, st));
            return;
          }
          if (parsed === undefined) {
            fail(new CallError(`failed to call webhook: the answer is not JSON`, errors.badRequest('error calling webhook')));
            return;
          }
          settled = true;
          clearTimeout(timer);
          resolve(parsed);
        });
      });
      const timer = setTimeout(() => {
        fail(callError('context deadline exceeded'));
        req.destroy();
      }, timeoutMs);
      req.on('error', (err: NodeJS.ErrnoException) => {
        // A kept-alive connection the webhook closed as we reused it: sent again once on a new one, as Go's
        // transport retries a request that never reached the server.
        if (!settled && !retried && !answered && req.reusedSocket && (err.code === 'ECONNRESET' || err.code === 'EPIPE')) {
          const left = timeoutMs - (Date.now() - started);
          if (left > 0) {
            settled = true;
            clearTimeout(timer);
            this.#send(target, cc, body, left, true).then(resolve, reject);
            return;
          }
        }
        fail(callError(dialMessage(err, target)));
      });
      req.end(payload);
    });
  }

  /** POSTs `body` with the webhook's caBundle; resolves with the parsed JSON of a 2xx answer, rejects with a CallError. */
  async call(cc: ClientConfig, body: string, timeoutSeconds: number): Promise<unknown> {
    const deadline = Date.now() + timeoutSeconds * 1000;
    const target = await this.#target(cc);
    target.url.searchParams.set('timeout', `${timeoutSeconds}s`);
    const remaining = deadline - Date.now();
    if (remaining <= 0) throw new CallError(`failed to call webhook: Post "${target.url.href}": context deadline exceeded`, errors.badRequest('error calling webhook'));
    return this.#send(target, cc, body, remaining);
  }
}

/** A Status from a non-2xx answer: the webhook's own Status when it sent one, as the REST client does. */
function asStatus(parsed: unknown, code: number): StatusError {
  if (typeof parsed === 'object' && parsed !== null && (parsed as { kind?: unknown }).kind === 'Status') {
    const s = parsed as { message?: unknown; reason?: unknown; code?: unknown };
    const message = typeof s.message === 'string' ? s.message : `the server responded with the status code ${code} but did not return more information`;
    return new StatusError(typeof s.code === 'number' && s.code > 0 ? s.code : code, (typeof s.reason === 'string' ? s.reason : '') as StatusError['reason'], message);
  }
  return new StatusError(code, '', `the server responded with the status code ${code} but did not return more information`);
}

/** Go's wording for the common dial failures (`dial tcp 127.0.0.1:1: connect: connection refused`). */
function dialMessage(err: NodeJS.ErrnoException, target: Target): string {
  const addr = `${target.url.hostname}:${target.url.port || 443}`;
  switch (err.code) {
    case 'ECONNREFUSED':
      return `dial tcp ${addr}: connect: connection refused`;
    case 'ECONNRESET':
      return 'EOF';
    case 'ENOTFOUND':
      return `dial tcp: lookup ${target.url.hostname}: no such host`;
    case 'UNABLE_TO_VERIFY_LEAF_SIGNATURE':
    case 'SELF_SIGNED_CERT_IN_CHAIN':
    case 'DEPTH_ZERO_SELF_SIGNED_CERT':
      return 'x509: certificate signed by unknown authority';
    case 'ERR_TLS_CERT_ALTNAME_INVALID':
      return `x509: certificate is not valid for ${target.servername ?? target.url.hostname}`;
    default:
      return err.message;
  }
}
