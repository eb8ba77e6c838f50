/**
 * Which printer shows which kind. Keyed by served group and kind, so a
 * custom resource that happens to reuse a built-in kind name in its own
 * group gets the default table, as in the original.
 */
import type { Printer, Registration } from './printer.ts';
import { registrations as access } from './printers/access.ts';
import { registrations as batch } from './printers/batch.ts';
import { registrations as config } from './printers/config.ts';
import { registrations as events } from './printers/events.ts';
import { registrations as flowcontrol } from './printers/flowcontrol.ts';
import { registrations as nodes } from './printers/nodes.ts';
import { registrations as pods } from './printers/pods.ts';
import { registrations as scaling } from './printers/scaling.ts';
import { registrations as services } from './printers/services.ts';
import { registrations as storage } from './printers/storage.ts';
import { registrations as workloads } from './printers/workloads.ts';

const ALL: readonly Registration[] = [
  ...pods,
  ...workloads,
  ...batch,
  ...services,
  ...nodes,
  ...events,
  ...config,
  ...storage,
  ...access,
  ...scaling,
  ...flowcontrol,
];

const byKey = new Map<string, Printer>();
for (const r of ALL) {
  const key = `${r.group}/${r.kind}`;
  if (byKey.has(key)) throw new Error(`table: two printers for ${key}`);
  byKey.set(key, r.printer);
}

/** The printer for a kind, or undefined when it takes the default table. */
export function printerFor(group: string, kind: string): Printer | undefined {
  return byKey.get(`${group}/${kind}`);
}

/** Every kind with its own columns, as `group/Kind` (`/Pod` for the core group). */
export function printedKinds(): string[] {
  return [...byKey.keys()].sort();
}
