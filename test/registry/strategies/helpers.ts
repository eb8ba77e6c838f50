/** Shared bits of the strategy tests: a request context and error rendering. */
import type { KObject } from '../../../src/registry/object.ts';
import type { FieldError, StrategyContext } from '../../../src/registry/strategy.ts';

export const NOW = '2025-01-02T03:04:05Z';

export function ctx(subresource = '', user: StrategyContext['user'] = { name: 'alice', uid: 'u-1', groups: ['dev', 'system:authenticated'] }): StrategyContext {
  return { user, now: NOW, dryRun: false, subresource };
}

/** `field: message` lines, the way the API server lists causes. */
export function lines(errs: FieldError[]): string[] {
  return errs.map((e) => `${e.field}: ${e.message}`);
}

export function fields(errs: FieldError[]): string[] {
  return errs.map((e) => e.field);
}

export function make(kind: string, extra: Record<string, unknown>, meta: KObject['metadata'] = { name: 'x', namespace: 'default' }): KObject {
  return { kind, metadata: { ...meta }, ...structuredClone(extra) };
}

export function podTemplate(labels: Record<string, string> = { app: 'web' }, spec: Record<string, unknown> = {}): Record<string, unknown> {
  return { metadata: { labels }, spec: { containers: [{ name: 'web', image: 'nginx:1.27' }], ...spec } };
}
