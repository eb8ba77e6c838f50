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
  #generation = 0;

  constructor(onChange: () => void) {
    this.#onChange = onChange;
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
      if (configs.size === 0) return;
      // The watch restarts and replays the current state; until then the last known configurations keep working.
      return;
    }
    const name = ev.object.metadata.name ?? '';
    if (ev.type === 'DELETED') configs.delete(name);
    else configs.set(name, readWebhooks(kind, ev.object));
    const names = [...configs.keys()].sort();
    this.#sorted = { ...this.#sorted, [kind]: names.flatMap((n) => configs.get(n)!) };
    this.#generation++;
    this.#onChange();
  }
}
