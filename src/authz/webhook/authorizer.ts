/**
 * The Webhook mode, after the original's WebhookAuthorizer
 * (staging/src/k8s.io/apiserver/plugin/pkg/authorizer/webhook): each
 * decision is a SubjectAccessReview POSTed to the configured server
 * (`authorization.<suffix>/v1beta1` by default, `v1` on request; v1beta1
 * spells the groups `spec.group`), answered by the same kind and version.
 *
 * - allowed -> allow, denied -> deny, neither -> no opinion, both -> deny;
 * - answers are cached by the review's spec: allowed ones for
 *   `--authorization-webhook-cache-authorized-ttl` (5m), others for
 *   `-unauthorized-ttl` (30s), in a bounded LRU keyed by the spec's hash;
 *   requests with very large names are not cached (as the original);
 * - a webhook that fails (connection, timeout, HTTP error, a malformed or
 *   wrong-version answer), after the retries, gives no opinion: the chain
 *   goes on, and if nothing else allows the request is denied. Never allow.
 */
import { createHash } from 'node:crypto';
import { apiGroup } from '../../naming/index.ts';
import { TtlLruCache } from '../../authn/cache.ts';
import type { AuthorizationAttributes, AuthorizationResult, Authorizer } from '../types.ts';
import { WebhookCallError, type WebhookClient } from './client.ts';

export type WebhookVersion = 'v1' | 'v1beta1';
export const WEBHOOK_VERSIONS: readonly WebhookVersion[] = ['v1', 'v1beta1'];

export interface WebhookAuthorizerOptions {
  readonly version: WebhookVersion;
  readonly authorizedTtlMs: number;
  readonly unauthorizedTtlMs: number;
  /** Most cached answers (the original keeps 8192). */
  readonly cacheSize?: number;
  /** Tries per decision and the wait before the second (growing by `factor`). */
  readonly retry?: { readonly attempts: number; readonly initialDelayMs: number; readonly factor: number };
  readonly now?: () => number;
  /** Told of each failed call (no credential in it). */
  readonly onError?: (err: Error) => void;
}

/** The original's default backoff: 5 tries, 500 ms growing 1.5 times. */
export const DEFAULT_RETRY = { attempts: 5, initialDelayMs: 500, factor: 1.5 } as const;
/** Requests whose user-chosen names are this long are not cached (maxControlledAttrCacheSize). */
const MAX_CACHED_ATTR_SIZE = 10_000;

interface Status {
  readonly allowed: boolean;
  readonly denied: boolean;
  readonly reason: string;
}

type Json = Record<string, unknown>;

function isObject(v: unknown): v is Json {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** The review's spec for these attributes, in the version's spelling. */
export function reviewSpec(attrs: AuthorizationAttributes, version: WebhookVersion): Json {
  const u = attrs.user;
  const spec: Json = {};
  if (attrs.isResourceRequest) {
    // Every field is omitempty in the original's types: an empty one is left out.
    const ra: Json = {};
    const put = (k: string, v: string): void => {
      if (v !== '') ra[k] = v;
    };
    put('namespace', attrs.namespace);
    put('verb', attrs.verb);
    put('group', attrs.apiGroup);
    put('version', attrs.apiVersion);
    put('resource', attrs.resource);
    put('subresource', attrs.subresource);
    put('name', attrs.name);
    spec['resourceAttributes'] = ra;
  } else {
    const nra: Json = {};
    if (attrs.path !== '') nra['path'] = attrs.path;
    if (attrs.verb !== '') nra['verb'] = attrs.verb;
    spec['nonResourceAttributes'] = nra;
  }
  if (u.name !== '') spec['user'] = u.name;
  if (u.groups.length > 0) spec[version === 'v1' ? 'groups' : 'group'] = [...u.groups];
  if (u.extra !== undefined && Object.keys(u.extra).length > 0) spec['extra'] = u.extra;
  if (u.uid !== undefined && u.uid !== '') spec['uid'] = u.uid;
  return spec;
}

function shouldCache(a: AuthorizationAttributes): boolean {
  const size = a.namespace.length + a.verb.length + a.apiGroup.length + a.apiVersion.length + a.resource.length + a.subresource.length + a.name.length + a.path.length;
  return size < MAX_CACHED_ATTR_SIZE;
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms).unref());

export class WebhookAuthorizer implements Authorizer {
  readonly name = 'Webhook';
  readonly #client: WebhookClient;
  readonly #opts: WebhookAuthorizerOptions;
  readonly #apiVersion: string;
  readonly #cache: TtlLruCache<string, Status>;
  readonly #now: () => number;

  constructor(client: WebhookClient, opts: WebhookAuthorizerOptions) {
    this.#client = client;
    this.#opts = opts;
    this.#apiVersion = `${apiGroup('authorization')}/${opts.version}`;
    this.#now = opts.now ?? Date.now;
    this.#cache = new TtlLruCache({ maxEntries: opts.cacheSize ?? 8192, now: this.#now });
  }

  async authorize(attrs: AuthorizationAttributes): Promise<AuthorizationResult> {
    const spec = reviewSpec(attrs, this.#opts.version);
    const key = createHash('sha256').update(JSON.stringify(spec)).digest('base64');
    let status = this.#cache.get(key);
    if (status === undefined) {
      try {
        status = await this.#review(spec);
      } catch (err) {
        this.#opts.onError?.(err instanceof Error ? err : new Error(String(err)));
        return { decision: 'noOpinion', reason: '' };
      }
      if (shouldCache(attrs)) {
        this.#cache.set(key, status, this.#now() + (status.allowed ? this.#opts.authorizedTtlMs : this.#opts.unauthorizedTtlMs));
      }
    }
    if (status.denied) return { decision: 'deny', reason: status.reason };
    if (status.allowed) return { decision: 'allow', reason: status.reason };
    return { decision: 'noOpinion', reason: status.reason };
  }

  /** Webhooks cannot list rules (the original says the same). */
  rulesFor(): { resourceRules: []; nonResourceRules: []; incomplete: true; evaluationError: string } {
    return { resourceRules: [], nonResourceRules: [], incomplete: true, evaluationError: 'webhook authorizer does not support user rule resolution' };
  }

  close(): void {
    this.#client.close();
  }

  async #review(spec: Json): Promise<Status> {
    const retry = this.#opts.retry ?? DEFAULT_RETRY;
    let delay = retry.initialDelayMs;
    for (let attempt = 1; ; attempt++) {
      try {
        const answer = await this.#client.post({ apiVersion: this.#apiVersion, kind: 'SubjectAccessReview', metadata: { creationTimestamp: null }, spec });
        return this.#status(answer);
      } catch (err) {
        if (!(err instanceof WebhookCallError) || !err.retriable || attempt >= retry.attempts) throw err;
      }
      await sleep(delay);
      delay *= retry.factor;
    }
  }

  #status(answer: unknown): Status {
    if (!isObject(answer)) throw new WebhookCallError('webhook answer is not an object', false);
    if (answer['apiVersion'] !== this.#apiVersion || answer['kind'] !== 'SubjectAccessReview') {
      throw new WebhookCallError(`webhook answered ${JSON.stringify(answer['apiVersion'])} ${JSON.stringify(answer['kind'])}, not ${this.#apiVersion} SubjectAccessReview`, false);
    }
    const status = isObject(answer['status']) ? answer['status'] : {};
    const reason = typeof status['reason'] === 'string' ? status['reason'] : '';
    return { allowed: status['allowed'] === true, denied: status['denied'] === true, reason };
  }
}
