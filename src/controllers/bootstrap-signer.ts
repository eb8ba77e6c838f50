/**
 * BootstrapSigner keeps the `cluster-info` config map of the public
 * namespace signed (spec 2.7), as the original's bootstrapsigner: for every
 * bootstrap token secret marked `usage-bootstrap-signing=true` and not
 * expired, `jws-<key>-<token id>` holds a detached HS256 JWS (header
 * `{"alg":"HS256","kid":"<token id>"}`) of the config map's `<key>` value;
 * signatures of tokens that are gone, expired or no longer for signing are
 * removed. The HMAC key is the full token `<id>.<secret>` in the orch flavor
 * (the spec) and the token secret alone in the kubernetes flavor (what the
 * original's code does, so its join tools verify it): names.clusterInfoJwsKey.
 *
 * It also publishes cluster-info when absent, as the original's cluster
 * set-up tool does: the cluster's server URL and CA bundle, nothing else, and
 * a Role and RoleBinding that let anonymous clients read that one config map
 * (a joining node has no credentials yet to read it with).
 */
import { CompactSign } from 'jose';
import { apiGroup, names } from '../naming/index.ts';
import { StatusError } from '../api/status.ts';
import { BOOTSTRAP_TOKEN_RE, BOOTSTRAP_TOKEN_SECRET_PREFIX, expirationTime, KEY_EXPIRATION, KEY_TOKEN_ID, KEY_TOKEN_SECRET } from '../authn/bootstrap-token.ts';
import type { KObject } from '../registry/object.ts';
import { Informer } from './informer.ts';
import { WorkQueue } from './work-queue.ts';
import { controllerUser, errText, lookupType, secretValue, type ControllerContext } from './controller-context.ts';
import type { ElectedController } from './leader-election.ts';

export const CLUSTER_INFO = 'cluster-info';
export const KEY_USAGE_SIGNING = 'usage-bootstrap-signing';
/** `jws-<clusterInfoKey>-`, followed by the token id. */
export const JWS_KEY_PREFIX = `jws-${names.clusterInfoKey}-`;
const CLUSTER_INFO_ROLE = 'system:bootstrap-signer-clusterinfo';
const USER = controllerUser('bootstrap-signer');
/** The server's own identity, for the objects a cluster set-up tool would create. */
const SETUP_USER = { name: 'system:apiserver', groups: ['system:masters', 'system:authenticated'] };
const SYNC_KEY = 'cluster-info';

/** The detached JWS of `content` for one token (`<header>..<signature>`). */
export async function detachedSignature(content: string, tokenId: string, tokenSecret: string): Promise<string> {
  const key = names.clusterInfoJwsKey === 'token' ? `${tokenId}.${tokenSecret}` : tokenSecret;
  const jws = await new CompactSign(new TextEncoder().encode(content)).setProtectedHeader({ alg: 'HS256', kid: tokenId }).sign(new TextEncoder().encode(key));
  const [header, , signature] = jws.split('.');
  return `${header}..${signature}`;
}

/** The kubeconfig with only the cluster, as cluster-info carries it. */
export function clusterInfoConfig(server: string, caPem: string): string {
  return [
    'apiVersion: v1',
    'clusters:',
    '- cluster:',
    `    certificate-authority-data: ${Buffer.from(caPem).toString('base64')}`,
    `    server: ${server}`,
    '  name: ""',
    'contexts: null',
    'current-context: ""',
    'kind: Config',
    'preferences: {}',
    'users: null',
    '',
  ].join('\n');
}

export interface BootstrapSignerOptions {
  /** The API server's URL as joining clients reach it. */
  readonly server: string;
  /** PEM of the CA bundle that verifies the server. */
  readonly caPem: string;
}

export class BootstrapSigner implements ElectedController {
  readonly name = 'bootstrapsigner';
  readonly #ctx: ControllerContext;
  readonly #opts: BootstrapSignerOptions;
  readonly #configMaps: Informer;
  readonly #secrets: Informer;
  readonly #queue: WorkQueue;
  updates = 0;

  constructor(ctx: ControllerContext, opts: BootstrapSignerOptions) {
    this.#ctx = ctx;
    this.#opts = opts;
    this.#configMaps = new Informer(ctx.store, lookupType(ctx.registry, '', 'configmaps'), { namespace: names.publicNamespace });
    this.#secrets = new Informer(ctx.store, lookupType(ctx.registry, '', 'secrets'), { namespace: names.systemNamespace, fieldSelector: `type=${names.secretTypes.bootstrapToken}` });
    this.#queue = new WorkQueue(() => this.#sync(), (key, err) => ctx.log.warn({ controller: this.name, key, err: errText(err) }, 'bootstrap signer sync failed'));
    this.#configMaps.onEvent((_t, obj) => {
      if (obj.metadata.name === CLUSTER_INFO) this.#queue.add(SYNC_KEY);
    });
    this.#secrets.onEvent((_t, obj) => {
      if (obj['type'] === names.secretTypes.bootstrapToken) this.#queue.add(SYNC_KEY);
    });
  }

  async start(): Promise<void> {
    this.#queue.resume();
    await Promise.all([this.#configMaps.start(), this.#secrets.start()]);
    await this.#publish().catch((err: unknown) => this.#ctx.log.warn({ controller: this.name, err: errText(err) }, 'publishing cluster-info failed'));
    this.#queue.add(SYNC_KEY);
  }

  stop(): void {
    this.#queue.stop();
    this.#configMaps.stop();
    this.#secrets.stop();
  }

  async drained(): Promise<void> {
    await this.#queue.drained();
  }

  /** cluster-info and anonymous read access to it, when absent (never overwritten). */
  async #publish(): Promise<void> {
    const opts = { user: SETUP_USER, dryRun: false, fieldManager: names.apiServerFieldManager };
    const ignoreExists = (err: unknown): void => {
      if (!(err instanceof StatusError && err.code === 409)) throw err;
    };
    const pub = names.publicNamespace;
    await this.#ctx.store
      .create(this.#configMaps.resourceType, pub, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: CLUSTER_INFO, namespace: pub }, data: { [names.clusterInfoKey]: clusterInfoConfig(this.#opts.server, this.#opts.caPem) } }, opts)
      .catch(ignoreExists);
    const rbac = apiGroup('rbac.authorization');
    const roles = this.#ctx.registry.lookup(rbac, 'v1', 'roles');
    const bindings = this.#ctx.registry.lookup(rbac, 'v1', 'rolebindings');
    if (roles === undefined || bindings === undefined) return;
    await this.#ctx.store
      .create(roles, pub, { apiVersion: `${rbac}/v1`, kind: 'Role', metadata: { name: CLUSTER_INFO_ROLE, namespace: pub }, rules: [{ apiGroups: [''], resources: ['configmaps'], resourceNames: [CLUSTER_INFO], verbs: ['get'] }] }, opts)
      .catch(ignoreExists);
    await this.#ctx.store
      .create(
        bindings,
        pub,
        {
          apiVersion: `${rbac}/v1`,
          kind: 'RoleBinding',
          metadata: { name: CLUSTER_INFO_ROLE, namespace: pub },
          roleRef: { apiGroup: rbac, kind: 'Role', name: CLUSTER_INFO_ROLE },
          subjects: [{ apiGroup: rbac, kind: 'User', name: 'system:anonymous' }],
        },
        opts,
      )
      .catch(ignoreExists);
  }

  /** id -> secret of every token valid for signing now. */
  #signingTokens(): Map<string, string> {
    const out = new Map<string, string>();
    const now = this.#ctx.now();
    for (const s of this.#secrets.list()) {
      if (s['type'] !== names.secretTypes.bootstrapToken || s.metadata.deletionTimestamp) continue;
      const id = secretValue(s, KEY_TOKEN_ID);
      const secret = secretValue(s, KEY_TOKEN_SECRET);
      if (s.metadata.name !== BOOTSTRAP_TOKEN_SECRET_PREFIX + id || !BOOTSTRAP_TOKEN_RE.test(`${id}.${secret}`)) continue;
      if (secretValue(s, KEY_USAGE_SIGNING) !== 'true') continue;
      const expires = expirationTime(secretValue(s, KEY_EXPIRATION));
      if (Number.isNaN(expires) || expires <= now) continue;
      // Re-sign when it expires, so its signature goes then.
      if (expires !== Infinity) this.#queue.addAfter(SYNC_KEY, expires - now + 1);
      out.set(id, secret);
    }
    return out;
  }

  async #sync(): Promise<void> {
    const cm = this.#configMaps.get(names.publicNamespace, CLUSTER_INFO);
    if (cm === undefined || cm.metadata.deletionTimestamp) return;
    const data = (cm['data'] ?? {}) as Record<string, string>;
    const content = data[names.clusterInfoKey];
    if (typeof content !== 'string') return;
    const next: Record<string, string> = {};
    for (const [k, v] of Object.entries(data)) if (!k.startsWith(JWS_KEY_PREFIX)) next[k] = v;
    for (const [id, secret] of this.#signingTokens()) next[JWS_KEY_PREFIX + id] = await detachedSignature(content, id, secret);
    const same = Object.keys(next).length === Object.keys(data).length && Object.entries(next).every(([k, v]) => data[k] === v);
    if (same) return;
    const updated: KObject = { ...cm, data: next };
    try {
      await this.#ctx.store.update(this.#configMaps.resourceType, names.publicNamespace, CLUSTER_INFO, updated, { user: USER, dryRun: false, fieldManager: 'bootstrap-signer' });
      this.updates++;
    } catch (err) {
      // 409: changed meanwhile; its event queues another pass. 404: gone.
      if (err instanceof StatusError && (err.code === 404 || err.code === 409)) return;
      throw err;
    }
  }
}
