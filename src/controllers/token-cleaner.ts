/**
 * TokenCleaner deletes expired bootstrap token secrets (spec 3.3), as the
 * original's tokencleaner: a secret of the bootstrap token type in the
 * system namespace whose `expiration` has passed, or cannot be parsed, is
 * deleted (with its UID as precondition, so a replacement is never hit); one
 * not yet expired is looked at again when it expires.
 */
import { names } from '../naming/index.ts';
import { StatusError } from '../api/status.ts';
import { expirationTime, KEY_EXPIRATION } from '../authn/bootstrap-token.ts';
import type { KObject } from '../registry/object.ts';
import { Informer, objectKeyOf } from './informer.ts';
import { WorkQueue } from './work-queue.ts';
import { controllerUser, errText, lookupType, secretValue, splitKey, type ControllerContext } from './controller-context.ts';
import type { ElectedController } from './leader-election.ts';

const USER = controllerUser('token-cleaner');

export class TokenCleaner implements ElectedController {
  readonly name = 'tokencleaner';
  readonly #ctx: ControllerContext;
  readonly #secrets: Informer;
  readonly #queue: WorkQueue;
  /** Secrets deleted (tests and the two-server check). */
  deleted = 0;

  constructor(ctx: ControllerContext) {
    this.#ctx = ctx;
    this.#secrets = new Informer(ctx.store, lookupType(ctx.registry, '', 'secrets'), { namespace: names.systemNamespace, fieldSelector: `type=${names.secretTypes.bootstrapToken}` });
    this.#queue = new WorkQueue((k) => this.#sync(k), (key, err) => ctx.log.warn({ controller: this.name, key, err: errText(err) }, 'token cleaner sync failed'));
    this.#secrets.onEvent((type, obj) => {
      if (type !== 'DELETED' && obj['type'] === names.secretTypes.bootstrapToken) this.#queue.add(objectKeyOf(obj));
    });
  }

  async start(): Promise<void> {
    this.#queue.resume();
    await this.#secrets.start();
  }

  stop(): void {
    this.#queue.stop();
    this.#secrets.stop();
  }

  async drained(): Promise<void> {
    await this.#queue.drained();
  }

  async #sync(key: string): Promise<void> {
    const { namespace, name } = splitKey(key);
    const secret = this.#secrets.get(namespace, name);
    if (secret === undefined || secret['type'] !== names.secretTypes.bootstrapToken || secret.metadata.deletionTimestamp) return;
    const expires = expirationTime(secretValue(secret, KEY_EXPIRATION));
    if (expires === Infinity) return;
    const now = this.#ctx.now();
    if (!Number.isNaN(expires) && expires > now) {
      this.#queue.addAfter(key, expires - now);
      return;
    }
    await this.#delete(secret);
  }

  async #delete(secret: KObject): Promise<void> {
    const rt = this.#secrets.resourceType;
    try {
      await this.#ctx.store.delete(rt, secret.metadata.namespace!, secret.metadata.name!, {
        user: USER,
        dryRun: false,
        preconditions: { uid: secret.metadata.uid },
      });
      this.deleted++;
      this.#ctx.log.info({ controller: this.name, secret: `${secret.metadata.namespace}/${secret.metadata.name}` }, 'deleted expired bootstrap token secret');
    } catch (err) {
      // Gone already, or replaced (UID precondition): nothing to do.
      if (err instanceof StatusError && (err.code === 404 || err.code === 409)) return;
      throw err;
    }
  }
}
