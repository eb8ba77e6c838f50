/**
 * The webhook configurations of one serving thread, fed by a list-then-watch
 * of each configuration kind (never a store read per request). Webhooks are
 * kept as the original's configuration manager keeps them: configurations
 * sorted by name, webhooks in their order inside each. Every change calls
 * `onChange` (the plugin recompiles the chain, so a type that no webhook
 * could match pays nothing).
 */
import type { GenericStore } from '../../registry/generic-store.ts';
import type { ResourceType } from '../../registry/resource-type.ts';
import type { KObject } from '../../registry/object.ts';
import { ListWatchFeed, type FeedEvent } from '../../authz/node/feed.ts';
import { readWebhooks, type Webhook, type WebhookKind } from './hook.ts';

export interface WebhookSource {
  /** The webhooks of a kind, in calling order. */
  hooks(kind: WebhookKind): readonly Webhook[];
}

export class WebhookConfigIndex implements WebhookSource {
  readonly #configs: Record<WebhookKind, Map<string, Webhook[]>> = { mutating: new Map(), validating: new Map() };
  #sorted: Record<WebhookKind, readonly Webhook[]> = { mutating: [], validating: [] };
  readonly #feeds: ListWatchFeed[] = [];
  readonly #onChange: () => void;
  readonly #relist: ((kind: WebhookKind) => Promise<KObject[]>) | undefined;
  #generation = 0;

  /**
   * `relist`: the current configurations of a kind from the watch cache,
   * read when a watch is lost (a configuration deleted meanwhile must not
   * stay in force); until it answers, the last known ones keep working.
   */
  constructor(onChange: () => void, relist?: (kind: WebhookKind) => Promise<KObject[]>) {
    this.#onChange = onChange;
    this.#relist = relist;
  }

  /** Starts watching `rt` (one of the two configuration types) as `kind`. */
  watch(store: GenericStore, kind: WebhookKind, rt: ResourceType): void {
    const feed = new ListWatchFeed(store, rt, (ev) => this.#apply(kind, ev));
    this.#feeds.push(feed);
    feed.start();
  }

  /** Bumped at every change: uids of webhooks are per configuration version, see `hooks`. */
  get generation(): number {
    return this.#generation;
  }

  hooks(kind: WebhookKind): readonly Webhook[] {
    return this.#sorted[kind];
  }

  /** Sets a configuration directly (tests without a store). */
  put(kind: WebhookKind, config: KObject): void {
    this.#apply(kind, { type: 'MODIFIED', object: config });
  }

  close(): void {
    for (const f of this.#feeds) f.close();
  }

  #apply(kind: WebhookKind, ev: FeedEvent): void {
    const configs = this.#configs[kind];
    if (ev.type === 'reset') {
      // The watch restarts and replays what exists; what was deleted meanwhile is found by a fresh list.
      void this.#relist?.(kind).then(
        (objects) => {
          // Only removals: the replay brings the current objects themselves.
          const present = new Set(objects.map((o) => o.metadata.name ?? ''));
          let removed = false;
          for (const name of [...configs.keys()]) if (!present.has(name)) removed = configs.delete(name) || removed;
          if (removed) this.#changed(kind);
        },
        () => undefined,
      );
      return;
    }
    const name = ev.object.metadata.name ?? '';
    if (ev.type === 'DELETED') configs.delete(name);
    else configs.set(name, readWebhooks(kind, ev.object));
    this.#changed(kind);
  }

  #changed(kind: WebhookKind): void {
    const configs = this.#configs[kind];
    const names = [...configs.keys()].sort();
    this.#sorted = { ...this.#sorted, [kind]: names.flatMap((n) => configs.get(n)!) };
    this.#generation++;
    this.#onChange();
  }
}
