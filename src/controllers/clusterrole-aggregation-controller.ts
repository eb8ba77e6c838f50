/**
 * ClusterRoleAggregationController, after the original's
 * clusterroleaggregation controller: a ClusterRole with
 * `aggregationRule.clusterRoleSelectors` gets as its rules the union of the
 * rules of every other ClusterRole one of its selectors matches — roles
 * sorted by name, each rule once, in first-seen order — so `admin`, `edit`
 * and `view` grow when a role labelled `aggregate-to-*` appears.
 *
 * It reads the RBAC index the serving thread already keeps (no watch of its
 * own, no store reads to decide) and writes by compare-and-swap update on
 * the revision it read, so a write never undoes a concurrent one; it writes
 * only when the rules differ, so running it twice (or on two servers) is
 * harmless. Leader-less for now.
 */
import type { GenericStore } from '../registry/generic-store.ts';
import type { ResourceRegistry } from '../registry/registry.ts';
import type { ResourceType } from '../registry/resource-type.ts';
import { jsonEqual } from '../registry/object.ts';
import { StatusError } from '../api/status.ts';
import { labelSelectorFromObject, type LabelSelectorObject } from '../selectors/index.ts';
import { apiGroup } from '../naming/index.ts';
import type { RbacIndex } from '../authz/rbac/index.ts';
import type { RoleRecord } from '../authz/rbac/types.ts';
import { parseRules } from '../authz/rbac/parse.ts';
import { APISERVER_USER, ruleJson } from '../authz/rbac/reconcile.ts';

export interface AggregationLogger {
  warn(obj: object, msg: string): void;
}

const RETRY_MS = 1000;
/** Passes over the aggregated roles within one sync; chains of aggregation deeper than this finish on later changes. */
const MAX_ROUNDS = 5;

/** The rules an aggregated role should have, from the roles now known. */
export function aggregatedRules(role: RoleRecord, all: ReadonlyMap<string, RoleRecord>): Record<string, string[]>[] {
  const matched = new Map<string, RoleRecord>();
  for (const raw of role.aggregationSelectors ?? []) {
    let selector;
    try {
      selector = labelSelectorFromObject(raw as LabelSelectorObject);
    } catch {
      continue; // An invalid selector selects nothing (validation refuses new ones).
    }
    for (const other of all.values()) if (other.name !== role.name && selector.matches(other.labels)) matched.set(other.name, other);
  }
  const out: Record<string, string[]>[] = [];
  for (const name of [...matched.keys()].sort()) {
    for (const rule of matched.get(name)!.rules) {
      const json = ruleJson(rule);
      if (!out.some((r) => jsonEqual(r, json))) out.push(json);
    }
  }
  return out;
}

export class ClusterRoleAggregationController {
  readonly #store: GenericStore;
  readonly #index: RbacIndex;
  readonly #rt: ResourceType | undefined;
  readonly #log: AggregationLogger;
  #unsubscribe: (() => void) | null = null;
  #scheduled = false;
  #running = false;
  #again = false;
  #retry: NodeJS.Timeout | null = null;
  #stopped = false;

  constructor(store: GenericStore, registry: ResourceRegistry, index: RbacIndex, log: AggregationLogger) {
    this.#store = store;
    this.#index = index;
    this.#rt = registry.lookup(apiGroup('rbac.authorization'), 'v1', 'clusterroles');
    this.#log = log;
  }

  /**
   * Subscribes to cluster role changes and makes the first pass; resolves
   * once that pass is done, so a server can serve `admin`, `edit` and `view`
   * complete from its first request.
   */
  async start(): Promise<void> {
    if (this.#rt === undefined) return;
    this.#unsubscribe = this.#index.onChange((c) => {
      if (c.resource === 'clusterroles') this.#schedule();
    });
    await this.#index.ready;
    await this.#syncAll();
  }

  stop(): void {
    this.#stopped = true;
    this.#unsubscribe?.();
    if (this.#retry !== null) clearTimeout(this.#retry);
  }

  /** Resolves once no sync is pending or running (tests, shutdown). */
  async idle(): Promise<void> {
    while (this.#scheduled || this.#running) await new Promise((r) => setTimeout(r, 10));
  }

  #schedule(): void {
    if (this.#stopped) return;
    if (this.#scheduled) return;
    this.#scheduled = true;
    // Coalesce a burst of changes (a start, an apply of many roles) into one pass.
    setImmediate(() => {
      this.#scheduled = false;
      void this.#syncAll();
    });
  }

  async #syncAll(): Promise<void> {
    if (this.#stopped) return;
    if (this.#running) {
      this.#again = true;
      return;
    }
    this.#running = true;
    let failed = false;
    try {
      // A local view updated with what this pass writes, so roles aggregating aggregated roles
      // (admin <- edit <- view) settle in one pass instead of one pass per watch event.
      const roles = new Map(this.#index.policy.clusterRoles);
      for (let round = 0; round < MAX_ROUNDS; round++) {
        let wrote = false;
        for (const role of [...roles.values()]) {
          if (role.aggregationSelectors === null) continue;
          const want = aggregatedRules(role, roles);
          if (jsonEqual(role.rules.map(ruleJson), want)) continue;
          try {
            await this.#write(role.name, roles);
            roles.set(role.name, { ...role, rules: parseRules(want) });
            wrote = true;
          } catch (err) {
            failed = true;
            if (!this.#stopped) this.#log.warn({ clusterRole: role.name, err: err instanceof Error ? err.message : String(err) }, 'cluster role aggregation failed; retrying');
          }
        }
        if (!wrote || this.#stopped) break;
      }
    } finally {
      this.#running = false;
    }
    if (this.#again) {
      this.#again = false;
      this.#schedule();
    } else if (failed && this.#retry === null && !this.#stopped) {
      this.#retry = setTimeout(() => {
        this.#retry = null;
        this.#schedule();
      }, RETRY_MS);
      this.#retry.unref();
    }
  }

  async #write(name: string, roles: ReadonlyMap<string, RoleRecord>): Promise<void> {
    const rt = this.#rt!;
    await this.#store
      .guaranteedUpdate(rt, '', name, { user: APISERVER_USER, dryRun: false, fieldManager: 'clusterrole-aggregation-controller' }, '', (current) => {
        if (current === null) throw new StatusError(404, 'NotFound', `clusterrole ${name} is gone`);
        // Decide from the object read (CAS on its revision): rules from the index's view of the others.
        const selectors = (current['aggregationRule'] as { clusterRoleSelectors?: unknown[] } | undefined)?.clusterRoleSelectors;
        if (!Array.isArray(selectors)) return { update: current };
        const record: RoleRecord = { namespace: '', name, labels: {}, rules: parseRules(current['rules']), aggregationSelectors: selectors };
        return { update: { ...current, rules: aggregatedRules(record, roles) } };
      })
      .catch((err: unknown) => {
        if (err instanceof StatusError && err.code === 404) return null;
        throw err;
      });
  }
}

