/**
 * Admission contract: plugins see a write after defaulting and before
 * storage. Mutating plugins run first, then validating ones; any rejection
 * rejects the request. Admission does not apply to reads.
 */
import type { UserInfo } from '../server/context.ts';
import type { KObject } from '../registry/object.ts';
import type { ResourceType } from '../registry/resource-type.ts';

export type Operation = 'CREATE' | 'UPDATE' | 'DELETE' | 'CONNECT';

export interface AdmissionAttributes {
  readonly operation: Operation;
  readonly resourceType: ResourceType;
  readonly subresource: string;
  readonly namespace: string;
  readonly name: string;
  /** The new object (mutable for mutating plugins); null for DELETE. */
  readonly object: KObject | null;
  readonly oldObject: KObject | null;
  readonly user: UserInfo | undefined;
  readonly dryRun: boolean;
}

export interface AdmissionPlugin {
  readonly name: string;
  /** Mutating phase; may change `attrs.object`. Throws a StatusError to reject. */
  admit?(attrs: AdmissionAttributes): Promise<void> | void;
  /** Validating phase; must not change anything. Throws a StatusError to reject. */
  validate?(attrs: AdmissionAttributes): Promise<void> | void;
}

export class AdmissionChain {
  readonly #plugins: readonly AdmissionPlugin[];
  constructor(plugins: readonly AdmissionPlugin[]) {
    this.#plugins = plugins;
  }
  async admit(attrs: AdmissionAttributes): Promise<void> {
    for (const p of this.#plugins) if (p.admit) await p.admit(attrs);
  }
  async validate(attrs: AdmissionAttributes): Promise<void> {
    for (const p of this.#plugins) if (p.validate) await p.validate(attrs);
  }
}
