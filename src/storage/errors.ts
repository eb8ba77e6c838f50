/**
 * Typed storage errors. Each carries a stable `code` so that errors can cross
 * a thread boundary (structured clone drops class identity) and be rebuilt
 * with {@link storageErrorFromWire}. The HTTP layer maps them onto Status
 * reasons: NotFound 404, AlreadyExists 409, Conflict 409, Compacted 410 (Gone /
 * Expired), FutureRevision 504 (Timeout, "Too large resource version").
 */
import type { KeyValue, Revision } from './interface.ts';

export type StorageErrorCode =
  | 'NotFound'
  | 'AlreadyExists'
  | 'Conflict'
  | 'Compacted'
  | 'FutureRevision'
  | 'Unavailable'
  | 'Closed';

export abstract class StorageError extends Error {
  abstract readonly code: StorageErrorCode;
}

export class NotFoundError extends StorageError {
  readonly code = 'NotFound' as const;
  constructor(readonly key: string) {
    super(`key not found: ${key}`);
  }
}

export class AlreadyExistsError extends StorageError {
  readonly code = 'AlreadyExists' as const;
  constructor(readonly key: string) {
    super(`key already exists: ${key}`);
  }
}

/** The key's modRevision differed from the expected one. `current` is its value now. */
export class ConflictError extends StorageError {
  readonly code = 'Conflict' as const;
  constructor(
    readonly key: string,
    readonly expectedModRevision: Revision,
    readonly current: KeyValue,
  ) {
    super(`conflict on ${key}: expected revision ${expectedModRevision}, found ${current.modRevision}`);
  }
}

/** The asked revision is at or below the compacted revision. */
export class CompactedError extends StorageError {
  readonly code = 'Compacted' as const;
  constructor(
    readonly requestedRevision: Revision,
    readonly compactRevision: Revision,
  ) {
    super(
      `required revision ${requestedRevision} has been compacted (compacted revision ${compactRevision})`,
    );
  }
}

/** The asked revision is above the latest revision the store (or cache) has. */
export class FutureRevisionError extends StorageError {
  readonly code = 'FutureRevision' as const;
  constructor(
    readonly requestedRevision: Revision,
    readonly currentRevision: Revision,
  ) {
    super(`Too large resource version: ${requestedRevision}, current: ${currentRevision}`);
  }
}

export class StorageUnavailableError extends StorageError {
  readonly code = 'Unavailable' as const;
  constructor(message: string) {
    super(message);
  }
}

export class StoreClosedError extends StorageError {
  readonly code = 'Closed' as const;
  constructor() {
    super('store is closed');
  }
}

/** A storage error as plain data, safe to post across threads. */
export interface WireStorageError {
  code: StorageErrorCode;
  message: string;
  key?: string;
  expectedModRevision?: Revision;
  current?: KeyValue;
  requestedRevision?: Revision;
  compactRevision?: Revision;
  currentRevision?: Revision;
}

export function storageErrorToWire(err: StorageError): WireStorageError {
  const wire: WireStorageError = { code: err.code, message: err.message };
  if (err instanceof NotFoundError || err instanceof AlreadyExistsError) wire.key = err.key;
  if (err instanceof ConflictError) {
    wire.key = err.key;
    wire.expectedModRevision = err.expectedModRevision;
    wire.current = err.current;
  }
  if (err instanceof CompactedError) {
    wire.requestedRevision = err.requestedRevision;
    wire.compactRevision = err.compactRevision;
  }
  if (err instanceof FutureRevisionError) {
    wire.requestedRevision = err.requestedRevision;
    wire.currentRevision = err.currentRevision;
  }
  return wire;
}

export function storageErrorFromWire(wire: WireStorageError): StorageError {
  switch (wire.code) {
    case 'NotFound':
      return new NotFoundError(wire.key ?? '');
    case 'AlreadyExists':
      return new AlreadyExistsError(wire.key ?? '');
    case 'Conflict':
      return new ConflictError(wire.key ?? '', wire.expectedModRevision ?? 0, wire.current!);
    case 'Compacted':
      return new CompactedError(wire.requestedRevision ?? 0, wire.compactRevision ?? 0);
    case 'FutureRevision':
      return new FutureRevisionError(wire.requestedRevision ?? 0, wire.currentRevision ?? 0);
    case 'Unavailable':
      return new StorageUnavailableError(wire.message);
    case 'Closed':
      return new StoreClosedError();
  }
}

export function isStorageError(err: unknown): err is StorageError {
  return err instanceof StorageError;
}
