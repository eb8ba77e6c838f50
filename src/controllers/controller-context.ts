/**
 * What the elected in-server controllers share: the main thread's store and
 * registry, a log, the clock (tests move it), and small helpers. Each
 * controller acts as its own service account in the system namespace, as
 * the original's controller manager does with --use-service-account-credentials,
 * so the default policy's controller roles apply to its writes.
 */
import type { GenericStore } from '../registry/generic-store.ts';
import type { ResourceRegistry } from '../registry/registry.ts';
import type { ResourceType } from '../registry/resource-type.ts';
import type { KObject } from '../registry/object.ts';
import type { UserInfo } from '../server/context.ts';
import { names } from '../naming/index.ts';

export interface ControllerLog {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
}

export interface ControllerContext {
  readonly store: GenericStore;
  readonly registry: ResourceRegistry;
  readonly log: ControllerLog;
  /** Epoch ms. */
  readonly now: () => number;
}

/** The controller's service-account identity (`system:serviceaccount:<system ns>:<name>`). */
export function controllerUser(name: string): UserInfo {
  return {
    name: `system:serviceaccount:${names.systemNamespace}:${name}`,
    groups: ['system:serviceaccounts', `system:serviceaccounts:${names.systemNamespace}`, 'system:authenticated'],
  };
}

export function lookupType(registry: ResourceRegistry, group: string, resource: string): ResourceType {
  const rt = registry.lookup(group, 'v1', resource);
  if (rt === undefined) throw new Error(`${resource}${group ? '.' + group : ''}/v1 is not served`);
  return rt;
}

/** A secret's `data` value as text ('' when missing). */
export function secretValue(secret: KObject, key: string): string {
  const data = secret['data'];
  if (data === null || typeof data !== 'object' || Array.isArray(data)) return '';
  const v = (data as Record<string, unknown>)[key];
  return typeof v === 'string' ? Buffer.from(v, 'base64').toString('utf8') : '';
}

export function errText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** Splits an informer key `<namespace>/<name>` (or `<name>`). */
export function splitKey(key: string): { namespace: string; name: string } {
  const i = key.indexOf('/');
  return i < 0 ? { namespace: '', name: key } : { namespace: key.slice(0, i), name: key.slice(i + 1) };
}
