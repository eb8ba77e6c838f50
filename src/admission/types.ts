/**
 * Admission contract: plugins see a write after decoding and before
 * storage. Mutating plugins (`admit`) run first, before the type's own
 * defaulting and validation, as the original runs them in the handler;
 * validating plugins (`validate`) run after the type's validation, just
 * before the write. Any rejection rejects the request. Reads are never
 * admitted; dry-run writes are.
 */
import type { UserInfo } from '../server/context.ts';
import type { KObject } from '../registry/object.ts';
import type { ResourceType } from '../registry/resource-type.ts';

export type Operation = 'CREATE' | 'UPDATE' | 'DELETE' | 'CONNECT';

/** Where plugins leave what the response and the audit event carry. */
export interface AdmissionRecorder {
  /** A `Warning: 299` header on the response (PodSecurity's warn mode, webhooks' warnings). */
  warn(message: string): void;
  /** An audit annotation (`<plugin domain>/<key>`), kept for the audit event. */
  annotate(key: string, value: string): void;
}

export interface AdmissionAttributes extends AdmissionRecorder {
  readonly operation: Operation;
  readonly resourceType: ResourceType;
  readonly subresource: string;
  readonly namespace: string;
  /** The object's name; empty on a create that asks for a generated name. */
  readonly name: string;
  /** The new object (mutable for mutating plugins); null for DELETE and CONNECT. */
  object: KObject | null;
  readonly oldObject: KObject | null;
  readonly user: UserInfo | undefined;
  readonly dryRun: boolean;
  /** The request's options object (CreateOptions, UpdateOptions, PatchOptions, DeleteOptions) for webhooks. */
  readonly options: Readonly<Record<string, unknown>> | undefined;
}

export interface AdmissionPlugin {
  readonly name: string;
  /**
   * Whether the plugin has anything to do for this resource, subresource and
   * operation. Asked once per combination when the chain compiles it (see
   * chain.ts), never per request: a type no plugin handles pays nothing.
   * Absent means every combination.
   */
  handles?(rt: ResourceType, subresource: string, operation: Operation): boolean;
  /** Mutating phase; may change `attrs.object`. Throws a StatusError to reject. */
  admit?(attrs: AdmissionAttributes): Promise<void> | void;
  /** Validating phase; must not change anything. Throws a StatusError to reject. */
  validate?(attrs: AdmissionAttributes): Promise<void> | void;
}

/** What the generic store asks of admission. */
export interface Admission {
  /** Runs the mutating plugins that handle this write; resolves when all have run. */
  admit(attrs: AdmissionAttributes): Promise<void> | void;
  /** Runs the validating plugins that handle this write. */
  validate(attrs: AdmissionAttributes): Promise<void> | void;
  /** Whether any mutating (`'admit'`) or validating (`'validate'`) plugin handles the combination. */
  has(phase: 'admit' | 'validate', rt: ResourceType, subresource: string, operation: Operation): boolean;
}
