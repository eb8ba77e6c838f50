/**
 * One serving thread's priority-and-fairness configuration, after the
 * original's apf_controller.go: fed by watches of FlowSchemas and
 * PriorityLevelConfigurations (ResourceMirror), digested into a classifier
 * and one QueueSet per Limited level whenever either changes.
 *
 * - The mandatory levels and schemas (exempt, catch-all) are imagined while
 *   the store has no object of their name (mandatory.ts), as the original
 *   does, so the first request of a fresh server is classified.
 * - Each Limited level's seats: ceil(serverCL * shares / sum of shares);
 *   Exempt levels have none and never queue.
 * - A level keeps its QueueSet (and its waiting requests) across changes; a
 *   level that disappears is dropped once no request holds it (requests in
 *   its set finish there).
 */
import type { ShardAccess } from '../../shards/shard-access.ts';
import type { ResourceRegistry } from '../registry/registry.ts';
import { ResourceMirror } from '../registry/resource-mirror.ts';
import { apiGroup } from '../naming/index.ts';
import type { RequestInfo, UserInfo } from '../server/context.ts';
import { Classifier, type ClassifiedSchema } from './classifier.ts';
import { parseFlowSchema, parsePriorityLevel } from './parse.ts';
import { QueueSet } from './queueset.ts';
import type { FlowSchemaConfig, PriorityLevelConfig } from './types.ts';
import { FLOW_SCHEMA_CATCH_ALL, FLOW_SCHEMA_EXEMPT, MANDATORY_FS_CATCH_ALL, MANDATORY_FS_EXEMPT, MANDATORY_PL_CATCH_ALL, MANDATORY_PL_EXEMPT } from './mandatory.ts';
import type { FlowcontrolMetrics, FlowSeries } from './metrics.ts';

/** A priority level as requests see it. */
export interface Level {
  readonly config: PriorityLevelConfig;
  /** Null for Exempt levels. */
  readonly queues: QueueSet | null;
}

/** A classified schema plus what the filter records and answers with, made once per configuration. */
export interface Route {
  readonly schema: FlowSchemaConfig;
  readonly level: Level;
  readonly series: FlowSeries;
  /** The response headers naming the schema and level (one frozen object per route). */
  readonly headers: Readonly<Record<string, string>>;
}

export interface ControllerOptions {
  /** This thread's share of the server's concurrency limit (seats over all Limited levels). */
  serverConcurrencyLimit: number;
  readonly metrics: FlowcontrolMetrics;
  /** Response header names (the naming table's apfHeaders). */
  readonly headerNames: { readonly flowSchemaUid: string; readonly priorityLevelUid: string };
}

export class FlowcontrolController {
  readonly #opts: ControllerOptions;
  readonly #mirrors: ResourceMirror[] = [];
  #schemas: ResourceMirror | undefined;
  #levels: ResourceMirror | undefined;
  readonly #levelStates = new Map<string, Level>();
  #classifier: Classifier<Route>;
  #fallback: Route;
  #pending = false;

  /** Settles once both watches delivered their initial state (at once without the API). */
  readonly ready: Promise<void>;

  constructor(router: ShardAccess | undefined, registry: ResourceRegistry | undefined, opts: ControllerOptions) {
    this.#opts = { ...opts };
    const group = apiGroup('flowcontrol.apiserver');
    const fs = registry?.lookup(group, 'v1beta2', 'flowschemas');
    const pl = registry?.lookup(group, 'v1beta2', 'prioritylevelconfigurations');
    if (router !== undefined && fs !== undefined && pl !== undefined) {
      this.#schemas = new ResourceMirror(router, fs);
      this.#levels = new ResourceMirror(router, pl);
      this.#mirrors.push(this.#schemas, this.#levels);
      for (const m of this.#mirrors) m.onChange(() => this.#scheduleDigest());
    }
    const built = this.#digest();
    this.#classifier = built.classifier;
    this.#fallback = built.fallback;
    for (const m of this.#mirrors) m.start();
    this.ready = Promise.all(this.#mirrors.map((m) => m.ready)).then(() => undefined);
  }

  /** The route of a request: its schema, level and metric series. */
  classify(info: RequestInfo, user: UserInfo): Route {
    return this.#classifier.classify(info, user)?.level ?? this.#fallback;
  }

  /** A new share of the server's seats (the main thread serving alone after all): every level is resized at once. */
  setServerConcurrencyLimit(seats: number): void {
    if (seats === this.#opts.serverConcurrencyLimit) return;
    this.#opts.serverConcurrencyLimit = seats;
    const built = this.#digest();
    this.#classifier = built.classifier;
    this.#fallback = built.fallback;
  }

  /** The level of a name (tests, diagnostics). */
  level(name: string): Level | undefined {
    return this.#levelStates.get(name);
  }

  close(): void {
    for (const m of this.#mirrors) m.close();
  }

  /** Many changes in one tick (an initial state, a bootstrap pass) digest once. */
  #scheduleDigest(): void {
    if (this.#pending) return;
    this.#pending = true;
    queueMicrotask(() => {
      this.#pending = false;
      const built = this.#digest();
      this.#classifier = built.classifier;
      this.#fallback = built.fallback;
    });
  }

  #digest(): { classifier: Classifier<Route>; fallback: Route } {
    const levels = new Map<string, PriorityLevelConfig>();
    for (const o of this.#levels?.list() ?? []) {
      const c = parsePriorityLevel(o);
      if (c !== undefined) levels.set(c.name, c);
    }
    if (!levels.has(MANDATORY_PL_EXEMPT.name)) levels.set(MANDATORY_PL_EXEMPT.name, MANDATORY_PL_EXEMPT);
    if (!levels.has(MANDATORY_PL_CATCH_ALL.name)) levels.set(MANDATORY_PL_CATCH_ALL.name, MANDATORY_PL_CATCH_ALL);

    let shares = 0;
    for (const c of levels.values()) if (c.type === 'Limited') shares += c.shares;
    const serverCL = this.#opts.serverConcurrencyLimit;
    for (const c of levels.values()) {
      const old = this.#levelStates.get(c.name);
      if (c.type === 'Exempt') {
        this.#levelStates.set(c.name, { config: c, queues: null });
        this.#opts.metrics.setLimit(c.name, 0);
        continue;
      }
      const seats = Math.max(1, Math.ceil((serverCL * c.shares) / shares));
      const config = { concurrencyLimit: seats, queuing: c.queuing };
      let queues = old?.queues ?? null;
      if (queues === null) queues = new QueueSet(config);
      else queues.configure(config);
      this.#levelStates.set(c.name, { config: c, queues });
      this.#opts.metrics.setLimit(c.name, seats);
    }
    for (const name of [...this.#levelStates.keys()]) {
      if (levels.has(name)) continue;
      this.#levelStates.delete(name);
      this.#opts.metrics.removeLevel(name);
    }

    const schemas: FlowSchemaConfig[] = [];
    let haveExempt = false;
    let haveCatchAll = false;
    for (const o of this.#schemas?.list() ?? []) {
      const c = parseFlowSchema(o);
      if (c === undefined) continue;
      schemas.push(c);
      if (c.name === FLOW_SCHEMA_EXEMPT) haveExempt = true;
      if (c.name === FLOW_SCHEMA_CATCH_ALL) haveCatchAll = true;
    }
    if (!haveExempt) schemas.push(MANDATORY_FS_EXEMPT);
    if (!haveCatchAll) schemas.push(MANDATORY_FS_CATCH_ALL);

    const route = (schema: FlowSchemaConfig): Route | undefined => {
      const level = this.#levelStates.get(schema.priorityLevel);
      if (level === undefined) return undefined; // dangling
      const { flowSchemaUid, priorityLevelUid } = this.#opts.headerNames;
      return {
        schema,
        level,
        series: this.#opts.metrics.series(schema.name, level.config.name),
        headers: Object.freeze({ [flowSchemaUid]: schema.uid, [priorityLevelUid]: level.config.uid }),
      };
    };
    const classifier = new Classifier<Route>(schemas, route);
    const catchAll = schemas.find((s) => s.name === FLOW_SCHEMA_CATCH_ALL);
    const fallback = (catchAll !== undefined ? route(catchAll) : undefined) ?? route(MANDATORY_FS_CATCH_ALL)!;
    return { classifier, fallback };
  }
}
