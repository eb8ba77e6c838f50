/**
 * The benchmark's results: measurements, each optionally compared with a
 * ceiling (a measured upper bound for that kind of work on this machine) and
 * a target. Renders the one table the benchmark prints.
 */
import { fmtBytes, fmtDuration, fmtNum, fmtPercent } from '../lib/format.ts';
import type { Table } from '../lib/table.ts';

/** rate: higher is better (per second); time: lower is better (ms); bytes: lower is better. */
export type Kind = 'rate' | 'time' | 'bytes';

export interface CeilingRef {
  /** Short name shown in the ratio column, e.g. `fsync`. */
  readonly name: string;
  readonly value: number;
}

export interface Target {
  readonly text: string;
  readonly pass: boolean;
}

export interface Measurement {
  readonly section: string;
  readonly label: string;
  /** `embedded`, `etcd3`, or `-` for machine ceilings. */
  readonly backend: string;
  readonly kind: Kind;
  readonly value: number;
  /** Unit after a rate, e.g. `creates/s`; ignored for time and bytes. */
  readonly unit?: string;
  /** Latency percentiles of one operation, ms. */
  readonly p50?: number;
  readonly p99?: number;
  readonly ceiling?: CeilingRef | undefined;
  readonly target?: Target | undefined;
  readonly note?: string;
}

export interface Failure {
  readonly section: string;
  readonly backend: string;
  readonly message: string;
}

export const SECTION_TITLES: Record<string, string> = {
  ceilings: '7. Ceilings (machine limits, measured first)',
  creates: '1. Creates of 1 KiB objects',
  list: '2. List from the watch cache',
  watch: '3. Watch delivery',
  hop: '4. Shard round trip (main -> shard -> main)',
  rss: '5. Memory',
  delete: '6. Delete-heavy: namespace deletion, then create-if-absent',
};

export class Report {
  readonly measurements: Measurement[] = [];
  readonly failures: Failure[] = [];
  readonly #ceilings = new Map<string, CeilingRef>();
  readonly notes: string[] = [];

  add(m: Measurement): Measurement {
    this.measurements.push(m);
    const ratio = ratioText(m);
    const shown = m.kind === 'rate' ? `${fmtNum(m.value)} ${m.unit ?? '/s'}` : m.kind === 'time' ? fmtDuration(m.value) : fmtBytes(m.value);
    const extra = [
      m.p50 !== undefined ? `p50 ${fmtDuration(m.p50)}` : '',
      m.p99 !== undefined ? `p99 ${fmtDuration(m.p99)}` : '',
      ratio,
      m.target ? `${m.target.pass ? 'PASS' : 'MISS'} (${m.target.text})` : '',
    ]
      .filter((s) => s !== '')
      .join(', ');
    console.log(`  [${m.backend}] ${m.label}: ${shown}${extra ? `  (${extra})` : ''}`);
    return m;
  }

  /** Records a ceiling under `id` so later measurements can refer to it. */
  addCeiling(id: string, name: string, m: Measurement): void {
    this.add(m);
    this.#ceilings.set(id, { name, value: m.value });
  }

  ceiling(id: string): CeilingRef | undefined {
    return this.#ceilings.get(id);
  }

  /** Registers a reference value measured outside the ceilings section (e.g. the raw etcd3 client). */
  setReference(id: string, ref: CeilingRef): void {
    this.#ceilings.set(id, ref);
  }

  fail(section: string, backend: string, err: unknown): void {
    const message = err instanceof Error ? (err.stack ?? err.message).split('\n').slice(0, 4).join(' | ') : String(err);
    this.failures.push({ section, backend, message });
    console.log(`  [${backend}] ${section} FAILED: ${message}`);
  }

  table(): Table {
    const order = ['ceilings', 'creates', 'list', 'watch', 'hop', 'rss', 'delete'];
    const rows: Array<string[] | { section: string }> = [];
    for (const section of order) {
      const ms = this.measurements.filter((m) => m.section === section);
      const fs = this.failures.filter((f) => f.section === section);
      if (ms.length === 0 && fs.length === 0) continue;
      rows.push({ section: SECTION_TITLES[section] ?? section });
      for (const m of ms) rows.push(row(m));
      for (const f of fs) rows.push([`FAILED: ${section}`, f.backend, '—', '', '', '', '', f.message.slice(0, 160)]);
    }
    return {
      headers: ['measurement', 'backend', 'value', 'p50', 'p99', 'vs ceiling', 'target', 'note'],
      rows,
      alignRight: new Set([2, 3, 4, 5]),
    };
  }
}

function ratioText(m: Measurement): string {
  const c = m.ceiling;
  if (c === undefined || !Number.isFinite(c.value) || c.value <= 0) return '';
  // Rates: the share of the ceiling reached. Times and bytes: how many times the floor.
  if (m.kind === 'rate') return `${fmtPercent(m.value / c.value)} of ${c.name}`;
  return `${fmtNum(m.value / c.value)}× ${c.name}`;
}

function row(m: Measurement): string[] {
  const value =
    m.kind === 'rate' ? `${fmtNum(m.value)} ${m.unit ?? '/s'}` : m.kind === 'time' ? fmtDuration(m.value) : fmtBytes(m.value);
  return [
    m.label,
    m.backend,
    value,
    m.p50 !== undefined ? fmtDuration(m.p50) : '',
    m.p99 !== undefined ? fmtDuration(m.p99) : '',
    ratioText(m),
    m.target ? `${m.target.pass ? 'PASS' : 'MISS'} ${m.target.text}` : '',
    m.note ?? '',
  ];
}
