/**
 * The definitions' controller, run once per process (main thread): the
 * original's naming, establishing and finalizing controllers in one.
 *
 * - Names: a definition's names (plural, singular, kind, listKind, short
 *   names) must not collide with another definition's accepted names in the
 *   same group; then `status.acceptedNames` takes them and `NamesAccepted` is
 *   True (`NoConflicts`), else False (`<Field>Conflict`, `"x" is already in use`).
 * - Established: True once the names are accepted (`InitialNamesAccepted`).
 * - Deletion: a definition with the cleanup finalizer and a deletion time
 *   has every instance deleted (each through the generic store, so their own
 *   finalizers hold them), `Terminating` reporting progress; when none is
 *   left the finalizer goes and the definition with it.
 */
import type { GenericStore } from '../registry/generic-store.ts';
import type { ResourceRegistry } from '../registry/registry.ts';
import { resolveResourceType } from '../registry/registry.ts';
import type { ResourceType } from '../registry/resource-type.ts';
import { cloneJson, isPlainObject, nowRfc3339, type KObject } from '../registry/object.ts';
import { StatusError } from '../api/status.ts';
import type { Logger } from '../server/logging.ts';
import { CrdWatch } from './crd-watch.ts';
import { APIEXTENSIONS_GROUP, CLEANUP_FINALIZER, CRD_RESOURCE } from './crd-types.ts';
import { findCondition, setCondition } from './conditions.ts';
import { crdInfo } from './custom-resource.ts';
import { names } from '../naming/index.ts';

const RETRY_MS = 1000;

function obj(v: unknown): Record<string, unknown> {
  return isPlainObject(v) ? v : {};
}

function namesOf(n: Record<string, unknown>): { plural: string; singular: string; kind: string; listKind: string; shortNames: string[] } {
  const s = (v: unknown): string => (typeof v === 'string' ? v : '');
  return {
    plural: s(n['plural']),
    singular: s(n['singular']),
    kind: s(n['kind']),
    listKind: s(n['listKind']),
    shortNames: Array.isArray(n['shortNames']) ? (n['shortNames'] as unknown[]).filter((x): x is string => typeof x === 'string') : [],
  };
}

export class CrdController {
  readonly #store: GenericStore;
  readonly #crdType: ResourceType;
  readonly #registry: ResourceRegistry;
  readonly #log: Logger;
  readonly #crds = new Map<string, KObject>();
  readonly #busy = new Set<string>();
  readonly #again = new Set<string>();
  #watch: CrdWatch | null = null;
  #closed = false;
  readonly #timers = new Set<NodeJS.Timeout>();

  constructor(store: GenericStore, registry: ResourceRegistry, log: Logger) {
    this.#store = store;
    this.#crdType = registry.lookup(APIEXTENSIONS_GROUP, 'v1', CRD_RESOURCE)!;
    this.#registry = registry;
    this.#log = log;
  }

  async start(): Promise<void> {
    if (this.#crdType === undefined) return;
    this.#watch = new CrdWatch(this.#store.router, this.#crdType, {
      onChange: (crd, deleted) => {
        const name = crd.metadata.name ?? '';
        if (deleted) this.#crds.delete(name);
        else this.#crds.set(name, crd);
        if (!deleted) this.#kick(name);
        // A freed name may let another definition's names through.
        if (deleted) for (const other of this.#crds.keys()) this.#kick(other);
      },
      onSync: (names) => {
        for (const n of [...this.#crds.keys()]) if (!names.has(n)) this.#crds.delete(n);
      },
    });
    await this.#watch.start();
  }

  #kick(name: string): void {
    if (this.#closed) return;
    if (this.#busy.has(name)) {
      this.#again.add(name);
      return;
    }
    this.#busy.add(name);
    void this.#sync(name)
      .catch((err: unknown) => {
        if (!(err instanceof StatusError && (err.code === 404 || err.code === 409))) this.#log.warn({ crd: name, err: err instanceof Error ? err.message : String(err) }, 'custom resource definition controller');
        this.#later(name);
      })
      .finally(() => {
        this.#busy.delete(name);
        if (this.#again.delete(name)) this.#kick(name);
      });
  }

  #later(name: string): void {
    if (this.#closed) return;
    const t = setTimeout(() => {
      this.#timers.delete(t);
      this.#kick(name);
    }, RETRY_MS);
    t.unref();
    this.#timers.add(t);
  }

  async #sync(name: string): Promise<void> {
    const crd = this.#crds.get(name);
    if (crd === undefined) return;
    if (crd.metadata.deletionTimestamp) {
      if ((crd.metadata.finalizers ?? []).includes(CLEANUP_FINALIZER)) await this.#finalize(crd);
      return;
    }
    await this.#acceptNames(crd);
  }

  /** Checks the names against the other definitions of the group; writes acceptedNames and the conditions. */
  async #acceptNames(crd: KObject): Promise<void> {
    const name = crd.metadata.name ?? '';
    const spec = obj(crd['spec']);
    const group = typeof spec['group'] === 'string' ? spec['group'] : '';
    const wanted = namesOf(obj(spec['names']));
    const taken = { plural: new Set<string>(), singular: new Set<string>(), kind: new Set<string>(), listKind: new Set<string>(), shortNames: new Set<string>() };
    for (const [other, o] of this.#crds) {
      if (other === name || obj(o['spec'])['group'] !== group) continue;
      const n = namesOf(obj(obj(o['status'])['acceptedNames']));
      if (n.plural) taken.plural.add(n.plural);
      if (n.singular) taken.singular.add(n.singular);
      if (n.kind) taken.kind.add(n.kind);
      if (n.listKind) taken.listKind.add(n.listKind);
      for (const s of n.shortNames) taken.shortNames.add(s);
    }
    let conflict: { reason: string; message: string } | undefined;
    if (taken.plural.has(wanted.plural) || taken.singular.has(wanted.plural)) conflict = { reason: 'PluralConflict', message: `"${wanted.plural}" is already in use` };
    else if (taken.singular.has(wanted.singular) || taken.plural.has(wanted.singular)) conflict = { reason: 'SingularConflict', message: `"${wanted.singular}" is already in use` };
    else if (wanted.shortNames.some((s) => taken.shortNames.has(s) || taken.plural.has(s) || taken.singular.has(s))) {
      const s = wanted.shortNames.find((x) => taken.shortNames.has(x) || taken.plural.has(x) || taken.singular.has(x))!;
      conflict = { reason: 'ShortNamesConflict', message: `"${s}" is already in use` };
    } else if (taken.kind.has(wanted.kind) || taken.listKind.has(wanted.kind)) conflict = { reason: 'KindConflict', message: `"${wanted.kind}" is already in use` };
    else if (taken.listKind.has(wanted.listKind) || taken.kind.has(wanted.listKind)) conflict = { reason: 'ListKindConflict', message: `"${wanted.listKind}" is already in use` };

    const status = cloneJson(obj(crd['status']));
    const now = nowRfc3339();
    if (conflict === undefined) {
      const names = obj(spec['names']);
      status['acceptedNames'] = cloneJson(names);
      setCondition(status, { type: 'NamesAccepted', status: 'True', reason: 'NoConflicts', message: 'no conflicts found' }, now);
      if (findCondition(status, 'Established')?.status !== 'True') {
        setCondition(status, { type: 'Established', status: 'True', reason: 'InitialNamesAccepted', message: 'the initial names have been accepted' }, now);
      }
    } else {
      setCondition(status, { type: 'NamesAccepted', status: 'False', reason: conflict.reason, message: conflict.message }, now);
      if (findCondition(status, 'Established') === undefined) {
        setCondition(status, { type: 'Established', status: 'False', reason: 'NotAccepted', message: 'not all names are accepted' }, now);
      }
    }
    if (JSON.stringify(status) === JSON.stringify(obj(crd['status']))) return;
    await this.#writeStatus(crd, status);
  }

  async #writeStatus(crd: KObject, status: Record<string, unknown>): Promise<void> {
    const body: KObject = { ...cloneJson(crd), status };
    await this.#store.update(this.#crdType, '', crd.metadata.name ?? '', body, { user: undefined, dryRun: false, fieldManager: names.apiServerFieldManager }, 'status');
  }

  /** Deletes every instance; when none is left, removes the finalizer (and so the definition). */
  async #finalize(crd: KObject): Promise<void> {
    const info = crdInfo(crd);
    const storage = info.versions.find((v) => v.storage);
    const name = crd.metadata.name ?? '';
    if (storage !== undefined && info.plural !== '') {
      const rt = resolveResourceType({ group: info.group, version: storage.name, resource: info.plural, kind: info.kind, singularName: info.singular, namespaced: info.namespaced });
      await this.#store.router.ensureResource?.({ groupResource: rt.storageResource, prefix: rt.keyPrefix, namespaced: rt.namespaced, kind: rt.kind, apiVersion: rt.apiVersion, cacheSize: this.#registry.cacheSizeOf(rt) });
      const list = await this.#store.list(rt, { kind: 'latest' }, {}, {});
      if (list.count > 0) {
        const status = cloneJson(obj(crd['status']));
        setCondition(status, { type: 'Terminating', status: 'True', reason: 'InstanceDeletionInProgress', message: 'CustomResource deletion is in progress' }, nowRfc3339());
        if (JSON.stringify(status) !== JSON.stringify(obj(crd['status']))) await this.#writeStatus(crd, status).catch(() => undefined);
        const items = JSON.parse(`[${Buffer.from(list.items.buffer, list.items.byteOffset, list.items.byteLength).toString('utf8')}]`) as KObject[];
        for (const item of items) {
          if (item.metadata.deletionTimestamp) continue;
          try {
            await this.#store.delete(rt, item.metadata.namespace ?? '', item.metadata.name ?? '', { user: undefined, dryRun: false });
          } catch (err) {
            if (!(err instanceof StatusError && err.code === 404)) throw err;
          }
        }
        // Instances held by their own finalizers are looked at again later.
        this.#later(name);
        return;
      }
    }
    const next = cloneJson(crd);
    next.metadata.finalizers = (next.metadata.finalizers ?? []).filter((f) => f !== CLEANUP_FINALIZER);
    delete next.metadata.resourceVersion;
    await this.#store.update(this.#crdType, '', name, next, { user: undefined, dryRun: false, fieldManager: names.apiServerFieldManager });
  }

  close(): void {
    this.#closed = true;
    this.#watch?.close();
    for (const t of this.#timers) clearTimeout(t);
    this.#timers.clear();
  }
}
