/**
 * The in-server controllers' names and the original's `--controllers`
 * rule; no imports, so option validation can use it before the naming table
 * is fixed.
 */
export const CONTROLLER_NAMES = ['serviceaccount', 'serviceaccount-token', 'root-ca-cert-publisher', 'csrapproving', 'csrcleaner', 'bootstrapsigner', 'tokencleaner'] as const;
export type ControllerName = (typeof CONTROLLER_NAMES)[number];
const DISABLED_BY_DEFAULT: ReadonlySet<string> = new Set(['bootstrapsigner', 'tokencleaner']);

/** The original's IsControllerEnabled. */
export function controllerEnabled(name: string, flag: readonly string[]): boolean {
  let star = false;
  for (const c of flag) {
    if (c === name) return true;
    if (c === `-${name}`) return false;
    if (c === '*') star = true;
  }
  return star && !DISABLED_BY_DEFAULT.has(name);
}

/** Names in `--controllers` that are no controller (a start-up error). */
export function unknownControllers(flag: readonly string[]): string[] {
  const known = new Set<string>(CONTROLLER_NAMES);
  return flag.filter((c) => c !== '*' && !known.has(c.startsWith('-') ? c.slice(1) : c));
}

