/**
 * ServiceAccountTokenController fills legacy token secrets, as the original's
 * serviceaccount-token controller (tokens_controller.go, v1.25, where
 * accounts no longer get a secret made for them): a secret of the
 * service-account-token type (spec 2.8) naming an existing account in its
 * annotation gets `token` (a legacy JWT signed with the service-account
 * key), `ca.crt` (the root CA) and `namespace`, and the account's UID
 * annotation; a secret whose account is gone (or has another UID) is
 * deleted, and so are an account's token secrets when the account is.
 */
import { names } from '../naming/index.ts';
import { StatusError } from '../api/status.ts';
import type { KObject } from '../registry/object.ts';
import { legacyClaims } from '../authn/service-account/claims.ts';
import { Informer, objectKeyOf } from './informer.ts';
import { WorkQueue } from './work-queue.ts';
import { errText, lookupType, secretValue, splitKey, type ControllerContext } from './controller-context.ts';
import type { ElectedController } from './leader-election.ts';

// The original runs this controller with the controller manager's own credentials, not an account's.
const USER = { name: 'system:kube-controller-manager', groups: ['system:authenticated'] };

export interface TokenGenerator {
  sign(claims: Record<string, unknown>): Promise<string>;
}

export class ServiceAccountTokenController implements ElectedController {
  readonly name = 'serviceaccount-token';
  readonly #ctx: ControllerContext;
  readonly #signer: TokenGenerator;
  readonly #rootCa: string;
  readonly #accounts: Informer;
  readonly #secrets: Informer;
  readonly #queue: WorkQueue;
  generated = 0;
  deleted = 0;

  constructor(ctx: ControllerContext, signer: TokenGenerator, rootCaPem: string) {
    this.#ctx = ctx;
    this.#signer = signer;
    this.#rootCa = rootCaPem;
    this.#accounts = new Informer(ctx.store, lookupType(ctx.registry, '', 'serviceaccounts'));
    // Only token secrets are held (the original's informer selects the type too).
    this.#secrets = new Informer(ctx.store, lookupType(ctx.registry, '', 'secrets'), { fieldSelector: `type=${names.secretTypes.serviceAccountToken}` });
    this.#queue = new WorkQueue((k) => this.#sync(k), (key, err) => ctx.log.warn({ controller: this.name, key, err: errText(err) }, 'token controller sync failed'));
    this.#secrets.onEvent((type, obj) => {
      if (type !== 'DELETED' && obj['type'] === names.secretTypes.serviceAccountToken) this.#queue.add(objectKeyOf(obj));
    });
    this.#accounts.onEvent((type, obj) => {
      // An account gone (or replaced under the same name): its secrets are looked at again.
      if (type === 'ADDED') return;
      for (const s of this.#secrets.list(obj.metadata.namespace)) {
        if (s['type'] === names.secretTypes.serviceAccountToken && s.metadata.annotations?.[names.annotations.serviceAccountName] === obj.metadata.name) this.#queue.add(objectKeyOf(s));
      }
    });
  }

  async start(): Promise<void> {
    this.#queue.resume();
    await this.#accounts.start();
    await this.#secrets.start();
  }

  stop(): void {
    this.#queue.stop();
    this.#secrets.stop();
    this.#accounts.stop();
  }

  async drained(): Promise<void> {
    await this.#queue.drained();
  }

  async #sync(key: string): Promise<void> {
    const { namespace, name } = splitKey(key);
    const secret = this.#secrets.get(namespace, name);
    if (secret === undefined || secret['type'] !== names.secretTypes.serviceAccountToken || secret.metadata.deletionTimestamp) return;
    const annotations = secret.metadata.annotations ?? {};
    const saName = annotations[names.annotations.serviceAccountName] ?? '';
    const saUid = annotations[names.annotations.serviceAccountUid] ?? '';
    const sa = this.#accounts.get(namespace, saName);
    const rt = this.#secrets.resourceType;
    if (sa === undefined || (saUid !== '' && sa.metadata.uid !== saUid)) {
      // The informer may lag a just-created account: confirm with a read before deleting.
      const live = await this.#ctx.store.getObject(this.#accounts.resourceType, namespace, saName, { kind: 'latest' });
      if (live !== null && (saUid === '' || live.obj.metadata.uid === saUid)) {
        this.#queue.addAfter(key, 100);
        return;
      }
      try {
        await this.#ctx.store.delete(rt, namespace, name, { user: USER, dryRun: false, preconditions: { uid: secret.metadata.uid } });
        this.deleted++;
      } catch (err) {
        if (err instanceof StatusError && (err.code === 404 || err.code === 409)) return;
        throw err;
      }
      return;
    }
    const needsToken = secretValue(secret, 'token') === '';
    const needsCa = this.#rootCa !== '' && secretValue(secret, 'ca.crt') !== this.#rootCa;
    const needsNamespace = secretValue(secret, 'namespace') === '';
    const needsUid = saUid === '';
    if (!needsToken && !needsCa && !needsNamespace && !needsUid) return;
    const data = { ...((secret['data'] ?? {}) as Record<string, string>) };
    if (needsCa) data['ca.crt'] = Buffer.from(this.#rootCa).toString('base64');
    if (needsNamespace) data['namespace'] = Buffer.from(namespace).toString('base64');
    if (needsToken) {
      const token = await this.#signer.sign(legacyClaims({ namespace, serviceAccount: { name: saName, uid: sa.metadata.uid ?? '' }, secretName: name }));
      data['token'] = Buffer.from(token).toString('base64');
    }
    const next: KObject = {
      ...secret,
      metadata: { ...secret.metadata, annotations: { ...annotations, [names.annotations.serviceAccountUid]: sa.metadata.uid ?? '' } },
      data,
    };
    try {
      // With the read resourceVersion: a secret changed meanwhile is looked at again, never given two tokens.
      await this.#ctx.store.update(rt, namespace, name, next, { user: USER, dryRun: false, fieldManager: 'tokens-controller' });
      if (needsToken) this.generated++;
    } catch (err) {
      if (err instanceof StatusError && (err.code === 404 || err.code === 409)) return;
      throw err;
    }
  }
}
