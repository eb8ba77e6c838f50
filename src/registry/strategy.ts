/**
 * Strategy: what makes one resource type behave as it does, in the manner of
 * the original's RESTCreateStrategy / RESTUpdateStrategy. The generic store
 * calls these hooks; a type overrides only what differs from the defaults.
 *
 * Hooks mutate the object in place. Validation returns field errors that the
 * store turns into a 422 Invalid Status.
 */
import type { UserInfo } from '../server/context.ts';
import type { KObject } from './object.ts';

export interface FieldError {
  /** `metadata.name`, `spec.containers[0].image`, ... */
  field: string;
  /** Reason in the original's vocabulary: FieldValueRequired, FieldValueInvalid, FieldValueNotSupported, FieldValueDuplicate, FieldValueForbidden, FieldValueTooLong. */
  type: 'FieldValueRequired' | 'FieldValueInvalid' | 'FieldValueNotSupported' | 'FieldValueDuplicate' | 'FieldValueForbidden' | 'FieldValueTooLong' | 'FieldValueTooMany' | 'FieldValueNotFound';
  /** The full message as the original prints it, e.g. `Required value` or `Invalid value: "x": must be ...`. */
  message: string;
}

export interface StrategyContext {
  user: UserInfo | undefined;
  /** Request time, RFC 3339. */
  now: string;
  dryRun: boolean;
  /** '' for the main resource, `status`, `scale`, ... */
  subresource: string;
}

export interface Strategy {
  /**
   * The scheme's defaulting (the original's SetDefaults_* functions): run on
   * every decoded body of the type, creates and updates of any subresource
   * alike, BEFORE mutating admission, as the original defaults while
   * decoding. Idempotent; fills only absent fields, never reads stored state.
   */
  defaults?(obj: KObject): void;
  /** Resets before create, after mutating admission (e.g. clear status, set phase), as the original's PrepareForCreate. */
  prepareForCreate?(obj: KObject, ctx: StrategyContext): void;
  /** Resets before update, after mutating admission, as the original's PrepareForUpdate; `old` is the stored object. */
  prepareForUpdate?(obj: KObject, old: KObject, ctx: StrategyContext): void;
  /** Type-specific validation on create (metadata is validated generically). */
  validate?(obj: KObject, ctx: StrategyContext): FieldError[];
  /** Type-specific validation on update (immutable fields, ...). */
  validateUpdate?(obj: KObject, old: KObject, ctx: StrategyContext): FieldError[];
  /** Fields of a delete: graceful deletion (pods) returns a grace period to set instead of deleting now. */
  gracePeriod?(obj: KObject, requested: number | undefined): number;
  /**
   * Changes made on the first DELETE before deciding whether it waits: a type
   * that must clean up first adds its finalizer here (custom resource
   * definitions wait until their instances are gone).
   */
  beforeDelete?(obj: KObject, ctx: StrategyContext): void;
  /** Changes made when a deletion has to wait (namespaces turn Terminating). */
  prepareForDelete?(obj: KObject, ctx: StrategyContext): void;
  /** DELETE answers the deleted object rather than a Success Status (pods, namespaces, ...). */
  returnDeletedObject?: boolean;
  /** Virtual types: answer a create without storing anything (reviews). */
  answerCreate?(obj: KObject, ctx: StrategyContext): Promise<KObject> | KObject;
}

/** Field error constructors with the original's message shapes. */
export const fieldErrors = {
  required: (field: string, detail = ''): FieldError => ({
    field,
    type: 'FieldValueRequired',
    message: detail ? `Required value: ${detail}` : 'Required value',
  }),
  invalid: (field: string, value: unknown, detail: string): FieldError => ({
    field,
    type: 'FieldValueInvalid',
    message: `Invalid value: ${JSON.stringify(value)}: ${detail}`,
  }),
  notSupported: (field: string, value: unknown, supported: readonly string[]): FieldError => ({
    field,
    type: 'FieldValueNotSupported',
    message: `Unsupported value: ${JSON.stringify(value)}: supported values: ${supported.map((s) => `"${s}"`).join(', ')}`,
  }),
  duplicate: (field: string, value: unknown): FieldError => ({
    field,
    type: 'FieldValueDuplicate',
    message: `Duplicate value: ${JSON.stringify(value)}`,
  }),
  notFound: (field: string, value: unknown): FieldError => ({ field, type: 'FieldValueNotFound', message: `Not found: ${JSON.stringify(value)}` }),
  forbidden: (field: string, detail: string): FieldError => ({ field, type: 'FieldValueForbidden', message: `Forbidden: ${detail}` }),
  tooLong: (field: string, max: number): FieldError => ({
    field,
    type: 'FieldValueTooLong',
    message: `Too long: may not be more than ${max} bytes`,
  }),
};
