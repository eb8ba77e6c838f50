/**
 * ServiceAccountsController: a `default` ServiceAccount in every active
 * namespace, as the original's serviceaccounts controller keeps one (spec
 * 2.8). The ServiceAccount admission plugin gives pods without an account
 * `default` and rejects pods whose account is missing, so without this a
 * pod could not be created in a new namespace.
 *
 * As the original: namespaces added or changed are queued, and so is the
 * namespace of a deleted account; a queued namespace that exists and is not
 * terminating gets each missing account, read from the watch-fed copy (never
 * the store). A create that finds the account there (409) is success, one
 * refused because the namespace is going (403/404) is dropped. It runs
 * while this server leads (controller-manager.ts), so two servers on one
 * etcd do the work once.
 */
import { StatusError } from '../api/status.ts';
import { Informer } from './informer.ts';
import { WorkQueue } from './work-queue.ts';
import { controllerUser, errText, lookupType, type ControllerContext } from './controller-context.ts';
import type { ElectedController } from './leader-election.ts';

const USER = controllerUser('service-account-controller');
/** The original's --service-accounts-to-ensure default. */
const ACCOUNTS_TO_ENSURE = ['default'];

export class ServiceAccountsController implements ElectedController {
  readonly name = 'serviceaccount';
  readonly #ctx: ControllerContext;
  readonly #namespaces: Informer;
  readonly #accounts: Informer;
  readonly #queue: WorkQueue;
  created = 0;

  constructor(ctx: ControllerContext) {
    this.#ctx = ctx;
    this.#namespaces = new Informer(ctx.store, lookupType(ctx.registry, '', 'namespaces'));
    this.#accounts = new Informer(ctx.store, lookupType(ctx.registry, '', 'serviceaccounts'));
    this.#queue = new WorkQueue((ns) => this.#sync(ns), (key, err) => ctx.log.warn({ controller: this.name, namespace: key, err: errText(err) }, 'creating the default service account failed; retrying'));
    this.#namespaces.onEvent((type, obj) => {
      if (type !== 'DELETED') this.#queue.add(obj.metadata.name!);
    });
    this.#accounts.onEvent((type, obj) => {
      if (type === 'DELETED' && obj.metadata.namespace) this.#queue.add(obj.metadata.namespace);
    });
  }

  async start(): Promise<void> {
    this.#queue.resume();
    // Accounts first, so the namespaces' first pass sees the accounts that exist.
    await this.#accounts.start();
    await this.#namespaces.start();
  }

  stop(): void {
    this.#queue.stop();
    this.#namespaces.stop();
    this.#accounts.stop();
  }

  async drained(): Promise<void> {
    await this.#queue.drained();
  }

  async #sync(namespace: string): Promise<void> {
    const ns = this.#namespaces.get('', namespace);
    if (ns === undefined || ns.metadata.deletionTimestamp) return;
    for (const name of ACCOUNTS_TO_ENSURE) {
      if (this.#accounts.get(namespace, name) !== undefined) continue;
      try {
        await this.#ctx.store.create(this.#accounts.resourceType, namespace, { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name, namespace } }, { user: USER, dryRun: false });
        this.created++;
      } catch (err) {
        // 409: someone made it; 403/404: the namespace is going or gone.
        if (err instanceof StatusError && (err.code === 409 || err.code === 403 || err.code === 404)) continue;
        throw err;
      }
    }
  }
}
