/**
 * Webhook conversion of custom resources: a ConversionReview
 * (apiextensions.<suffix>/v1) POSTed over TLS to the definition's webhook,
 * named by URL or by Service (resolved through its Endpoints, as the
 * original's aggregator routing does; TLS server name `<service>.<namespace>.svc`),
 * trusting `caBundle`. Objects already in the wanted version are not sent.
 * A failed call, a Failure result or an answer that does not fit (count,
 * version, identity) is the original's 500 `conversion webhook for ... failed`.
 */
import https from 'node:https';
import { randomUUID } from 'node:crypto';
import { errors } from '../api/status.ts';
import { isPlainObject, type KObject } from '../registry/object.ts';
import type { ShardAccess } from '../../shards/shard-access.ts';
import { APIEXTENSIONS_GROUP } from './crd-types.ts';

const TIMEOUT_MS = 30_000;
/** Bound on an answer's size: a webhook cannot make the server hold unbounded memory. */
const MAX_RESPONSE_BYTES = 64 * 1024 * 1024;

export interface WebhookTarget {
  /** `https://host:port/path` to call, the TLS server name, the CA (PEM) to trust. */
  url: URL;
  servername: string;
  ca: string | undefined;
}

export interface ConversionWebhookConfig {
  readonly clientConfig: Record<string, unknown>;
  readonly reviewVersions: readonly string[];
}

export function webhookConfigOf(webhook: Record<string, unknown> | undefined): ConversionWebhookConfig | undefined {
  if (webhook === undefined || !isPlainObject(webhook['clientConfig'])) return undefined;
  const versions = Array.isArray(webhook['conversionReviewVersions']) ? (webhook['conversionReviewVersions'] as unknown[]).filter((v): v is string => typeof v === 'string') : [];
  return { clientConfig: webhook['clientConfig'], reviewVersions: versions };
}

/** Where to send a review: the URL, or the Service's first ready endpoint address. */
export async function resolveTarget(cc: Record<string, unknown>, router: ShardAccess): Promise<WebhookTarget> {
  const ca = typeof cc['caBundle'] === 'string' && cc['caBundle'] !== '' ? Buffer.from(cc['caBundle'], 'base64').toString('utf8') : undefined;
  if (typeof cc['url'] === 'string') {
    const url = new URL(cc['url']);
    return { url, servername: url.hostname, ca };
  }
  const svc = isPlainObject(cc['service']) ? cc['service'] : {};
  const ns = String(svc['namespace'] ?? '');
  const name = String(svc['name'] ?? '');
  const port = typeof svc['port'] === 'number' ? svc['port'] : 443;
  const path = typeof svc['path'] === 'string' ? svc['path'] : '/';
  const res = await router.get('/endpoints', `/endpoints/${ns}/${name}`, { kind: 'any' });
  if (res.object === null) throw new Error(`service "${ns}/${name}" has no endpoints`);
  const ep = JSON.parse(Buffer.from(res.object.json).toString('utf8')) as { subsets?: Array<{ addresses?: Array<{ ip?: string }>; ports?: Array<{ port?: number; name?: string }> }> };
  for (const subset of ep.subsets ?? []) {
    const ip = subset.addresses?.[0]?.ip;
    const p = subset.ports?.length === 1 ? subset.ports[0]!.port : subset.ports?.find((x) => x.port === port)?.port;
    if (ip !== undefined && p !== undefined) {
      const host = ip.includes(':') ? `[${ip}]` : ip;
      return { url: new URL(`https://${host}:${p}${path.startsWith('/') ? path : `/${path}`}`), servername: `${name}.${ns}.svc`, ca };
    }
  }
  throw new Error(`service "${ns}/${name}" has no ready endpoint`);
}

function post(target: WebhookTarget, body: Uint8Array): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const req = https.request(
      {
        method: 'POST',
        hostname: target.url.hostname.replace(/^\[|\]$/g, ''),
        port: target.url.port === '' ? 443 : Number(target.url.port),
        path: `${target.url.pathname}${target.url.search}`,
        servername: target.servername,
        ca: target.ca,
        headers: { 'content-type': 'application/json', accept: 'application/json', 'content-length': String(body.byteLength) },
        timeout: TIMEOUT_MS,
      },
      (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (c: Buffer) => {
          size += c.length;
          if (size > MAX_RESPONSE_BYTES) {
            req.destroy(new Error('the answer is too large'));
            return;
          }
          chunks.push(c);
        });
        res.on('end', () => {
          if ((res.statusCode ?? 0) !== 200) {
            reject(new Error(`the server responded with status ${res.statusCode ?? 0}`));
            return;
          }
          try {
            resolve(JSON.parse(Buffer.concat(chunks).toString('utf8')));
          } catch {
            reject(new Error('the answer is not JSON'));
          }
        });
        res.on('error', reject);
      },
    );
    req.on('timeout', () => req.destroy(new Error('context deadline exceeded')));
    req.on('error', reject);
    req.end(body);
  });
}

/**
 * Converts `objs` to `desired` (`<group>/<version>`) through the webhook;
 * objects already there stay as they are.
 */
export async function convertViaWebhook(cfg: ConversionWebhookConfig, router: ShardAccess, kind: string, desired: string, objs: KObject[]): Promise<KObject[]> {
  const todo = objs.map((o, i) => ({ o, i })).filter(({ o }) => o.apiVersion !== desired);
  if (todo.length === 0) return objs;
  const fail = (message: string): Error => errors.internal(`conversion webhook for ${desired}, Kind=${kind} failed: ${message}`);
  const reviewVersion = cfg.reviewVersions.includes('v1') ? 'v1' : 'v1beta1';
  const uid = randomUUID();
  const review = {
    apiVersion: `${APIEXTENSIONS_GROUP}/${reviewVersion}`,
    kind: 'ConversionReview',
    request: { uid, desiredAPIVersion: desired, objects: todo.map(({ o }) => o) },
  };
  let target: WebhookTarget;
  let answer: unknown;
  try {
    target = await resolveTarget(cfg.clientConfig, router);
    answer = await post(target, new TextEncoder().encode(JSON.stringify(review)));
  } catch (err) {
    throw fail(err instanceof Error ? err.message : String(err));
  }
  const response = isPlainObject(answer) && isPlainObject(answer['response']) ? answer['response'] : undefined;
  if (response === undefined) throw fail('the answer has no response');
  if (response['uid'] !== uid) throw fail(`expected response uid ${JSON.stringify(uid)}, got ${JSON.stringify(response['uid'])}`);
  const result = isPlainObject(response['result']) ? response['result'] : {};
  if (result['status'] !== 'Success') throw fail(typeof result['message'] === 'string' ? result['message'] : 'conversion failed');
  const converted = Array.isArray(response['convertedObjects']) ? (response['convertedObjects'] as unknown[]) : [];
  if (converted.length !== todo.length) throw fail(`expected ${todo.length} converted objects, got ${converted.length}`);
  const out = objs.slice();
  todo.forEach(({ o, i }, j) => {
    const c = converted[j];
    if (!isPlainObject(c) || !isPlainObject(c['metadata'])) throw fail('a converted object is not an object');
    if (c['apiVersion'] !== desired) throw fail(`invalid converted object: expected apiVersion ${desired}, got ${String(c['apiVersion'])}`);
    const m = c['metadata'] as Record<string, unknown>;
    if (m['name'] !== o.metadata.name || (m['namespace'] ?? '') !== (o.metadata.namespace ?? '') || (m['uid'] ?? o.metadata.uid) !== o.metadata.uid) {
      throw fail('invalid converted object: the identity (name, namespace, uid) changed');
    }
    // Only labels and annotations of metadata may change, as the original restores the rest.
    out[i] = { ...(c as KObject), metadata: { ...o.metadata, labels: m['labels'] as Record<string, string> | undefined, annotations: m['annotations'] as Record<string, string> | undefined } };
    if (out[i]!.metadata.labels === undefined) delete out[i]!.metadata.labels;
    if (out[i]!.metadata.annotations === undefined) delete out[i]!.metadata.annotations;
  });
  return out;
}
