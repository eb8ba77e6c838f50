/**
 * `?fieldValidation=Ignore|Warn|Strict`: what a write does with fields the
 * schema does not declare and with keys repeated in the body. The original's
 * default, when the parameter is absent or empty, is Warn; kubectl 1.32 sends
 * Strict for create, replace and apply unless `--validate=false|warn`.
 */
import { checkFieldValidation } from '../api/query-params.ts';

export type FieldValidation = 'Ignore' | 'Warn' | 'Strict';

export type WriteOptionsKind = 'CreateOptions' | 'UpdateOptions' | 'PatchOptions';

/** The directive of a request; 422 on the options kind for anything else (the one check: src/api/query-params.ts). */
export function parseFieldValidation(value: string | null, options: WriteOptionsKind): FieldValidation {
  checkFieldValidation(options, value ?? '');
  return value === null || value === '' ? 'Warn' : (value as FieldValidation);
}

/** What the strict decoder found, in the original's words and order: unknown fields, then duplicates. */
export function strictIssues(unknown: readonly string[], duplicate: readonly string[]): string[] {
  if (unknown.length === 0 && duplicate.length === 0) return [];
  return [...unknown.map((p) => `unknown field ${JSON.stringify(p)}`), ...duplicate.map((p) => `duplicate field ${JSON.stringify(p)}`)];
}

/** runtime.StrictDecodingError's text. */
export function strictDecodingMessage(issues: readonly string[]): string {
  return `strict decoding error: ${issues.join(', ')}`;
}
