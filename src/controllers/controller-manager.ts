/**
 * The in-server controller manager: the built-in controllers of issue 15
 * (and the service account controller), run under one Lease in the system
 * namespace (CONTROLLER_MANAGER_LEASE, leader-election.ts), as the original's controller
 * manager runs its controllers under one lease: with two servers on one
 * etcd, only the one holding the lease runs them; when it stops (release) or
 * dies (lease duration) the other takes over and the controllers start from
 * a fresh list, so nothing is lost across a restart.
 *
 * `--controllers` picks them as the original's flag does: `*` is the default
 * set, `name` adds one, `-name` removes one; bootstrapsigner and tokencleaner
 * are off by default there too. `--leader-elect=false` runs them at once.
 */
import { names } from '../naming/index.ts';
import { USER_CONTROLLER_MANAGER } from '../authz/rbac/bootstrap-policy.ts';
import type { Authorizer } from '../authz/types.ts';
import { CONTROLLER_MANAGER_LEASE, ElectedControllers, LeaderElector, type ElectedController, type LeaderElectionTimings } from './leader-election.ts';
import type { ControllerContext } from './controller-context.ts';
import { ServiceAccountsController } from './serviceaccounts-controller.ts';
import { ServiceAccountTokenController, type TokenGenerator } from './sa-token-controller.ts';
import { RootCaPublisher } from './root-ca-publisher.ts';
import { CsrApprover } from './csr-approver.ts';
import { CsrCleaner } from './csr-cleaner.ts';
import { BootstrapSigner } from './bootstrap-signer.ts';
import { TokenCleaner } from './token-cleaner.ts';
import { CONTROLLER_NAMES, controllerEnabled, type ControllerName } from './controller-names.ts';

export { CONTROLLER_NAMES, controllerEnabled, unknownControllers, type ControllerName } from './controller-names.ts';

export interface ControllerManagerOptions {
  readonly ctx: ControllerContext;
  readonly authorizer: Authorizer;
  readonly tokenSigner: TokenGenerator;
  readonly rootCaPem: string;
  /** The server's URL as cluster-info publishes it. */
  readonly serverUrl: string;
  readonly controllers: readonly string[];
  /** Controllers built elsewhere that run under the same lease (CSR signing). */
  readonly extra?: readonly ElectedController[];
  readonly leaderElect: boolean;
  readonly timings: LeaderElectionTimings;
  /** Unique per server (default: the elector's `<host>_<uuid>`). */
  readonly identity?: string;
}

export class ControllerManager {
  readonly controllers = new Map<ControllerName, ElectedController>();
  readonly #set: ElectedControllers;
  readonly #elector: LeaderElector | null;

  constructor(o: ControllerManagerOptions) {
    const { ctx } = o;
    const make: Record<ControllerName, () => ElectedController> = {
      serviceaccount: () => new ServiceAccountsController(ctx),
      'serviceaccount-token': () => new ServiceAccountTokenController(ctx, o.tokenSigner, o.rootCaPem),
      'root-ca-cert-publisher': () => new RootCaPublisher(ctx, o.rootCaPem),
      csrapproving: () => new CsrApprover(ctx, o.authorizer),
      csrcleaner: () => new CsrCleaner(ctx),
      bootstrapsigner: () => new BootstrapSigner(ctx, { server: o.serverUrl, caPem: o.rootCaPem }),
      tokencleaner: () => new TokenCleaner(ctx),
    };
    this.#set = new ElectedControllers(ctx.log);
    for (const name of CONTROLLER_NAMES) {
      if (!controllerEnabled(name, o.controllers)) continue;
      const c = make[name]();
      this.controllers.set(name, c);
      this.#set.add(c);
    }
    for (const c of o.extra ?? []) this.#set.add(c);
    this.#elector = o.leaderElect
      ? new LeaderElector({
          ...o.timings,
          store: ctx.store,
          registry: ctx.registry,
          namespace: names.systemNamespace,
          name: CONTROLLER_MANAGER_LEASE,
          ...(o.identity !== undefined ? { identity: o.identity } : {}),
          user: { name: USER_CONTROLLER_MANAGER, groups: ['system:authenticated'] },
          log: ctx.log,
          onStartedLeading: () => this.#set.startAll(),
          onStoppedLeading: () => this.#set.stopAll(),
        })
      : null;
  }

  get isLeader(): boolean {
    return this.#elector === null ? true : this.#elector.isLeader;
  }

  /** The elector, or null with --leader-elect=false. */
  get elector(): LeaderElector | null {
    return this.#elector;
  }

  get identity(): string | undefined {
    return this.#elector?.identity;
  }

  async start(): Promise<void> {
    if (this.#elector === null) await this.#set.startAll();
    else this.#elector.start();
  }

  async stop(): Promise<void> {
    if (this.#elector === null) await this.#set.stopAll();
    else await this.#elector.stop();
  }
}
