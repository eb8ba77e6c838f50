/**
 * Namespace labels for namespaceSelector, from a list-then-watch of the
 * namespaces kept by this thread, started the first time a webhook with a
 * namespace selector is consulted. A namespace not (yet) in the index is
 * read from the watch cache, as the original falls back from its informer
 * to a live read.
 */
import type { GenericStore } from '../../registry/generic-store.ts';
import type { ResourceType } from '../../registry/resource-type.ts';
import type { AdmissionLookup } from '../lookup.ts';
import { ListWatchFeed } from '../../authz/node/feed.ts';
import type { NamespaceLabels } from './matcher.ts';

export class NamespaceLabelIndex implements NamespaceLabels {
  readonly #labels = new Map<string, Record<string, string>>();
  readonly #store: () => GenericStore;
  readonly #lookup: AdmissionLookup;
  readonly #rt: ResourceType | undefined;
  #feed: ListWatchFeed | null = null;

  constructor(store: () => GenericStore, lookup: AdmissionLookup) {
    this.#store = store;
    this.#lookup = lookup;
    this.#rt = lookup.type('', 'v1', 'namespaces');
  }

  async labels(name: string): Promise<Record<string, string> | undefined> {
    const rt = this.#rt;
    if (rt === undefined) return undefined;
    if (this.#feed === null) {
      this.#feed = new ListWatchFeed(this.#store(), rt, (ev) => {
        if (ev.type === 'reset') return;
        const n = ev.object.metadata.name ?? '';
        if (ev.type === 'DELETED') this.#labels.delete(n);
        else this.#labels.set(n, ev.object.metadata.labels ?? {});
      });
      this.#feed.start();
    }
    const known = this.#labels.get(name);
    if (known !== undefined) return known;
    const ns = await this.#lookup.get(rt, '', name);
    return ns === null ? undefined : (ns.metadata.labels ?? {});
  }

  close(): void {
    this.#feed?.close();
  }
}
