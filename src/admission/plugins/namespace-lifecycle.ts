/**
 * NamespaceLifecycle: no new content in a namespace that does not exist or is
 * being terminated, and the system namespaces cannot be deleted, as the
 * original plugin does.
 */
import { errors, StatusError } from '../../api/status.ts';
import type { AdmissionAttributes, AdmissionPlugin } from '../types.ts';
import type { AdmissionPluginFactory } from '../plugin-table.ts';
import { names } from '../../naming/index.ts';

export const IMMORTAL_NAMESPACES = ['default', names.systemNamespace, names.publicNamespace] as const;

export interface NamespaceLookup {
  /** The namespace's phase, or undefined when it does not exist. */
  phase(name: string): Promise<'Active' | 'Terminating' | undefined>;
  /** A DELETE of the namespace was just admitted: look it up live for a while (its deletion mark is on the way). */
  deleting?(name: string): void;
}

/** As the original's forceLiveLookupTTL: how long after admitting a namespace's DELETE its lookups skip the local copy. */
const FORCE_LIVE_LOOKUP_MS = 30_000;
/** Bound on the names remembered (a flood of deletes must not grow memory without end). */
const FORCE_LIVE_LOOKUP_MAX = 4096;

/**
 * Names whose DELETE this thread admitted in the last FORCE_LIVE_LOOKUP_MS,
 * bounded: the oldest name goes first when full.
 */
export class RecentNamespaceDeletes {
  readonly #until = new Map<string, number>();
  constructor(
    private readonly now: () => number = Date.now,
    private readonly ttlMs = FORCE_LIVE_LOOKUP_MS,
    private readonly max = FORCE_LIVE_LOOKUP_MAX,
  ) {}

  add(name: string): void {
    this.#until.delete(name);
    if (this.#until.size >= this.max) this.#until.delete(this.#until.keys().next().value as string);
    this.#until.set(name, this.now() + this.ttlMs);
  }

  has(name: string): boolean {
    if (this.#until.size === 0) return false;
    const until = this.#until.get(name);
    if (until === undefined) return false;
    if (until > this.now()) return true;
    this.#until.delete(name);
    return false;
  }
}

export function namespaceLifecycle(namespaces: NamespaceLookup): AdmissionPlugin {
  return {
    name: 'NamespaceLifecycle',
    // Namespaced content is checked on create; namespaces themselves on delete.
    handles: (rt, _sub, op) => (rt.group === '' && rt.resource === 'namespaces' ? op === 'DELETE' : rt.namespaced && op === 'CREATE'),
    async validate(attrs: AdmissionAttributes): Promise<void> {
      const rt = attrs.resourceType;
      if (rt.group === '' && rt.resource === 'namespaces') {
        if (attrs.operation === 'DELETE') namespaces.deleting?.(attrs.name);
        if (attrs.operation === 'DELETE' && (IMMORTAL_NAMESPACES as readonly string[]).includes(attrs.name)) {
          throw new StatusError(403, 'Forbidden', `namespaces "${attrs.name}" is forbidden: this namespace may not be deleted`, {
            name: attrs.name,
            kind: 'namespaces',
          });
        }
        return;
      }
      if (!rt.namespaced || attrs.namespace === '') return;
      if (attrs.operation !== 'CREATE') return; // updates and deletes of existing content proceed
      const phase = await namespaces.phase(attrs.namespace);
      if (phase === undefined) throw errors.notFound('', 'namespaces', attrs.namespace);
      if (phase === 'Terminating') {
        throw new StatusError(
          403,
          'Forbidden',
          `${rt.group === '' ? rt.resource : `${rt.resource}.${rt.group}`} "${attrs.name}" is forbidden: unable to create new content in namespace ${attrs.namespace} because it is being terminated`,
          { name: attrs.name, group: rt.group, kind: rt.resource, causes: [{ reason: 'NamespaceTerminating', message: `namespace ${attrs.namespace} is being terminated`, field: 'metadata.namespace' }] },
        );
      }
    },
  };
}

export const namespaceLifecycleFactory: AdmissionPluginFactory = {
  name: 'NamespaceLifecycle',
  create(deps) {
    const namespaces = deps.lookup.type('', 'v1', 'namespaces')!;
    const recentDeletes = new RecentNamespaceDeletes();
    return namespaceLifecycle({
      async phase(name) {
        // As the original: this thread's copy of the namespaces answers for an active namespace (no thread hop per
        // create). Anything else is looked up live: absent here (created a moment ago), marked for deletion (gone
        // by now?), or deleted through this thread a moment ago, whose deletion mark the copy may not have yet.
        if (!recentDeletes.has(name)) {
          const ns = await deps.lookup.get(namespaces, '', name);
          if (ns !== null && !ns.metadata.deletionTimestamp) return 'Active';
        }
        const ns = await deps.lookup.get(namespaces, '', name, { live: true });
        if (ns === null) return undefined;
        return ns.metadata.deletionTimestamp ? 'Terminating' : 'Active';
      },
      deleting: (name) => recentDeletes.add(name),
    });
  },
};
