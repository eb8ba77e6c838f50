/**
 * WriteHooks: work a resource type does around the store's writes that needs
 * the running server (its configuration, other stored records), in the
 * manner of the original's Store.BeginCreate / BeginUpdate / AfterDelete.
 * Services allocate cluster IPs and node ports this way.
 *
 * A begin hook runs once the object is prepared, validated and admitted,
 * right before it is stored, and may change it (fill allocated values). Its
 * transaction is committed when the write succeeded and reverted when it did
 * not (or was a dry run that changed nothing).
 */
import type { KObject } from './object.ts';
import type { StrategyContext } from './strategy.ts';

export interface WriteTransaction {
  commit(): Promise<void>;
  revert(): Promise<void>;
}

export interface WriteHooks {
  beginCreate?(obj: KObject, ctx: StrategyContext): Promise<WriteTransaction>;
  beginUpdate?(obj: KObject, old: KObject, ctx: StrategyContext): Promise<WriteTransaction>;
  /** The object is gone from the store (not when a delete only marked it). */
  afterDelete?(obj: KObject, ctx: StrategyContext): Promise<void>;
}

export const NO_TRANSACTION: WriteTransaction = {
  commit: async () => undefined,
  revert: async () => undefined,
};
