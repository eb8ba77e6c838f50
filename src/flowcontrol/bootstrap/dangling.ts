/**
 * DanglingConditionController keeps the status the original's APF config
 * controller writes (apf_controller.go presyncFlowSchemaStatus): every
 * FlowSchema has a `Dangling` condition, True (reason NotFound) while the
 * PriorityLevelConfiguration it names does not exist, False (reason Found)
 * once it does, with the original's messages.
 *
 * Fed by two informers (FlowSchemas, PriorityLevelConfigurations): a schema
 * is looked at when it changes, and every schema naming a priority level when
 * that level appears or goes. The condition is written through the status
 * subresource only when its status, reason or message differ (the level's
 * existence confirmed by a consistent read first), as a compare-and-swap on
 * the revision the informer holds; so two servers on one
 * store write it at most once each per change and never fight (the loser's
 * conflict is retried, finds the condition right, and stops). One instance per
 * process, in the main thread.
 */
import type { GenericStore, WriteOptions } from '../../registry/generic-store.ts';
import { isPlainObject, nowRfc3339, type KObject } from '../../registry/object.ts';
import { StatusError } from '../../api/status.ts';
import { Informer } from '../../controllers/informer.ts';
import { WorkQueue } from '../../controllers/work-queue.ts';
import { APISERVER_USER } from '../../authz/rbac/reconcile.ts';
import type { FlowcontrolTypes } from './ensure.ts';
import { FLOW_SCHEMA_CONDITION_DANGLING } from './objects.ts';

/** The original's field manager of these status writes. */
export const CONSUMER_FIELD_MANAGER = 'api-priority-and-fairness-config-consumer-v1';

export interface DanglingLogger {
  warn(obj: object, msg: string): void;
}

export interface DanglingCondition {
  type: string;
  status: 'True' | 'False';
  reason: 'NotFound' | 'Found';
  message: string;
}

/** The condition a schema naming `plName` should carry. */
export function desiredDanglingCondition(plName: string, plExists: boolean): DanglingCondition {
  return plExists
    ? { type: FLOW_SCHEMA_CONDITION_DANGLING, status: 'False', reason: 'Found', message: `This FlowSchema references the PriorityLevelConfiguration object named ${JSON.stringify(plName)} and it exists` }
    : { type: FLOW_SCHEMA_CONDITION_DANGLING, status: 'True', reason: 'NotFound', message: `This FlowSchema references the PriorityLevelConfiguration object named ${JSON.stringify(plName)} but there is no such object` };
}

export function priorityLevelNameOf(fs: KObject): string {
  const spec = isPlainObject(fs['spec']) ? fs['spec'] : {};
  const ref = isPlainObject(spec['priorityLevelConfiguration']) ? spec['priorityLevelConfiguration'] : {};
  return typeof ref['name'] === 'string' ? ref['name'] : '';
}

function conditionsOf(fs: KObject): unknown[] {
  const status = isPlainObject(fs['status']) ? fs['status'] : {};
  return Array.isArray(status['conditions']) ? status['conditions'] : [];
}

/** The status to write, or null when the schema's Dangling condition already says what `want` says. */
export function statusWithCondition(fs: KObject, want: DanglingCondition, now: string): Record<string, unknown> | null {
  const conditions = conditionsOf(fs);
  const at = conditions.findIndex((c) => isPlainObject(c) && c['type'] === want.type);
  const have = at < 0 ? undefined : (conditions[at] as Record<string, unknown>);
  if (have !== undefined && have['status'] === want.status && have['reason'] === want.reason && have['message'] === want.message) return null;
  const next = { type: want.type, status: want.status, lastTransitionTime: now, reason: want.reason, message: want.message };
  const out = [...conditions];
  if (at < 0) out.push(next);
  else out[at] = next;
  return { ...(isPlainObject(fs['status']) ? fs['status'] : {}), conditions: out };
}

export class DanglingConditionController {
  readonly #store: GenericStore;
  readonly #types: FlowcontrolTypes;
  readonly #schemas: Informer;
  readonly #levels: Informer;
  readonly #queue: WorkQueue;
  readonly #now: () => Date;

  constructor(store: GenericStore, types: FlowcontrolTypes, log: DanglingLogger, now: () => Date = () => new Date()) {
    this.#store = store;
    this.#types = types;
    this.#now = now;
    this.#schemas = new Informer(store, types.flowSchemas);
    this.#levels = new Informer(store, types.priorityLevels);
    this.#queue = new WorkQueue(
      (name) => this.#sync(name),
      (name, err) => {
        // A conflict is another writer (the other server, an edit): the retry reads the informer's newer copy.
        if (!(err instanceof StatusError && err.code === 409)) log.warn({ flowSchema: name, err: err instanceof Error ? err.message : String(err) }, 'FlowSchema status not written, will retry');
      },
    );
    this.#schemas.onEvent((type, fs) => {
      if (type !== 'DELETED') this.#queue.add(fs.metadata.name ?? '');
    });
    this.#levels.onEvent((type, pl) => {
      // A level's existence is all the condition reads: only its appearance and removal matter.
      if (type === 'MODIFIED') return;
      const name = pl.metadata.name ?? '';
      for (const fs of this.#schemas.list()) if (priorityLevelNameOf(fs) === name) this.#queue.add(fs.metadata.name ?? '');
    });
  }

  /** Starts both feeds; the levels first, so the first look at each schema sees them. */
  async start(): Promise<void> {
    await this.#levels.start();
    await this.#schemas.start();
  }

  stop(): void {
    this.#queue.stop();
    this.#schemas.stop();
    this.#levels.stop();
  }

  /** This controller's copy of a schema (tests: has it seen a write yet?). */
  schema(name: string): KObject | undefined {
    return this.#schemas.get('', name);
  }

  /** Waits until the queued schemas have been looked at (tests). */
  async drained(): Promise<void> {
    await this.#queue.drained();
  }

  async #sync(name: string): Promise<void> {
    // Both feeds must be in: before that, a missing level may just not have arrived yet.
    if (!this.#levels.hasSynced || !this.#schemas.hasSynced) {
      this.#queue.addAfter(name, 100);
      return;
    }
    const fs = this.#schemas.get('', name);
    if (fs === undefined) return;
    const plName = priorityLevelNameOf(fs);
    const now = nowRfc3339(this.#now());
    if (statusWithCondition(fs, desiredDanglingCondition(plName, this.#levels.get('', plName) !== undefined), now) === null) return;
    // About to change the condition: the levels feed may lag the schema's (another server wrote the schema after
    // seeing a level this one has not yet), and acting on it would flip the condition back and forth. A change is
    // rare, so the level's existence is confirmed by a consistent read first.
    const level = await this.#store.getObject(this.#types.priorityLevels, '', plName, { kind: 'latest' });
    const status = statusWithCondition(fs, desiredDanglingCondition(plName, level !== null), now);
    if (status === null) return;
    const body: KObject = { ...fs, metadata: { ...fs.metadata }, status };
    const opts: WriteOptions = { user: APISERVER_USER, dryRun: false, fieldManager: CONSUMER_FIELD_MANAGER };
    try {
      await this.#store.update(this.#types.flowSchemas, '', name, body, opts, 'status');
    } catch (err) {
      // Deleted meanwhile: its DELETED event is on the way and there is nothing to keep.
      if (err instanceof StatusError && err.code === 404) return;
      throw err;
    }
  }
}
