/**
 * The admission chain: the enabled plugins in the original's order, compiled
 * per resource type, subresource and operation the first time that
 * combination is written (as fastify compiles a route once). A combination
 * no plugin handles compiles to two empty lists, and the store skips
 * admission for it without a promise or an attributes object.
 *
 * Plugins whose interest changes at run time (the webhooks, as
 * configurations come and go) call `recompile()`; the next write of each
 * combination compiles it again.
 */
import type { Admission, AdmissionAttributes, AdmissionPlugin, Operation } from './types.ts';
import type { ResourceType } from '../registry/resource-type.ts';

type Step = (attrs: AdmissionAttributes) => Promise<void> | void;

interface Compiled {
  readonly admit: readonly Step[];
  readonly validate: readonly Step[];
}

const EMPTY: Compiled = { admit: [], validate: [] };

export class AdmissionChain implements Admission {
  readonly #plugins: readonly AdmissionPlugin[];
  /**
   * By the type object, then the operation (or subresource and operation): a write's lookups then hash
   * only strings whose hash V8 already keeps (the operation literals, the empty subresource) instead of
   * a key joined from five strings for each of its three or four lookups (~2,000 instructions each).
   */
  #compiled = new WeakMap<ResourceType, Map<string, Compiled>>();

  /** `plugins` in the order they run (the original's order: see plugin-table.ts). */
  constructor(plugins: readonly AdmissionPlugin[]) {
    this.#plugins = plugins;
  }

  get plugins(): readonly AdmissionPlugin[] {
    return this.#plugins;
  }

  /** Forgets every compiled combination (a plugin's interest changed). */
  recompile(): void {
    this.#compiled = new WeakMap();
  }

  has(phase: 'admit' | 'validate', rt: ResourceType, subresource: string, operation: Operation): boolean {
    return this.#for(rt, subresource, operation)[phase].length > 0;
  }

  admit(attrs: AdmissionAttributes): Promise<void> | void {
    return run(this.#for(attrs.resourceType, attrs.subresource, attrs.operation).admit, attrs);
  }

  validate(attrs: AdmissionAttributes): Promise<void> | void {
    return run(this.#for(attrs.resourceType, attrs.subresource, attrs.operation).validate, attrs);
  }

  #for(rt: ResourceType, subresource: string, operation: Operation): Compiled {
    let byOperation = this.#compiled.get(rt);
    if (byOperation === undefined) {
      byOperation = new Map();
      this.#compiled.set(rt, byOperation);
    }
    // A subresource name holds no '/' (the path's segments), so the joined key cannot collide with another.
    const key = subresource === '' ? operation : `${subresource}/${operation}`;
    let c = byOperation.get(key);
    if (c === undefined) {
      c = this.#compile(rt, subresource, operation);
      byOperation.set(key, c);
    }
    return c;
  }

  #compile(rt: ResourceType, subresource: string, operation: Operation): Compiled {
    const admit: Step[] = [];
    const validate: Step[] = [];
    for (const p of this.#plugins) {
      if (p.handles !== undefined && !p.handles(rt, subresource, operation)) continue;
      if (p.admit) admit.push(p.admit.bind(p));
      if (p.validate) validate.push(p.validate.bind(p));
    }
    return admit.length === 0 && validate.length === 0 ? EMPTY : { admit, validate };
  }
}

/** Runs the steps one after another; synchronous all the way when no step returns a promise. */
function run(steps: readonly Step[], attrs: AdmissionAttributes): Promise<void> | void {
  for (let i = 0; i < steps.length; i++) {
    const r = steps[i]!(attrs);
    if (r !== undefined) return r.then(() => run(steps.slice(i + 1), attrs));
  }
}
