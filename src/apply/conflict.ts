/**
 * Apply conflicts, as the original's merge.Conflict(s): a manager that
 * owns a path the applied configuration would change. ConflictError is
 * typed so callers can turn it into their own response; its message is the
 * original's merge-level rendering (the field manager adds the API one).
 */
import type { ManagedFields } from './managers.ts';
import { pathString, type Path } from './path.ts';
import { compareStrings, goQuote } from './value.ts';

export interface Conflict {
  readonly manager: string;
  readonly path: Path;
}

export class ConflictError extends Error {
  readonly conflicts: readonly Conflict[];

  constructor(conflicts: readonly Conflict[]) {
    super(conflictsMessage(conflicts, goQuote));
    this.conflicts = conflicts;
  }
}

/**
 * Every conflicting path of every manager: managers in sorted order (the
 * original's map order is random), paths in set order.
 */
export function conflictsFromManagers(sets: ManagedFields): Conflict[] {
  const out: Conflict[] = [];
  for (const manager of [...sets.keys()].sort(compareStrings)) {
    sets.get(manager)!.set.iterate((path) => out.push({ manager, path }));
  }
  return out;
}

/**
 * `conflict with "m": .a` for one; otherwise grouped by manager:
 * `conflicts with "m":\n- .a\n- .b`. `printManager` renders a manager.
 */
export function conflictsMessage(conflicts: readonly Conflict[], printManager: (manager: string) => string): string {
  if (conflicts.length === 1) return `conflict with ${printManager(conflicts[0]!.manager)}: ${pathString(conflicts[0]!.path)}`;
  const byManager = new Map<string, Path[]>();
  for (const c of conflicts) {
    const paths = byManager.get(c.manager);
    if (paths === undefined) byManager.set(c.manager, [c.path]);
    else paths.push(c.path);
  }
  const lines: string[] = [];
  for (const manager of [...byManager.keys()].sort(compareStrings)) {
    lines.push(`conflicts with ${printManager(manager)}:`);
    for (const p of byManager.get(manager)!) lines.push(`- ${pathString(p)}`);
  }
  return lines.join('\n');
}
