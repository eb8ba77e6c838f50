/**
 * Rows of the API benchmark table, the reference figures and targets of the
 * issue, and the markdown file.
 */
import { fmtDuration, fmtInt, fmtNum } from '../lib/format.ts';
import type { Table } from '../lib/table.ts';
import type { BackendName } from './server.ts';
import type { FrontendName } from './measure.ts';

/**
 * The original API server (v1.25) with etcd 3.4, measured on this kind of
 * 2-core machine.
 */
export const REFERENCE = {
  createsPerSec: 674,
  createsP99Ms: 133,
  getsPerSec: 2170,
  getsP99Ms: 63,
  serverRssMB: 700,
  etcdRssMB: 260,
} as const;

/** Rate targets by backend and front end, as set in the issue. */
export function rateTarget(kind: 'creates' | 'gets', backend: BackendName, fe: FrontendName): { min: number; why: string } {
  const ref = kind === 'creates' ? REFERENCE.createsPerSec : REFERENCE.getsPerSec;
  if (fe === 'uws-h1') {
    // "uWS + embedded >= 3x those rates (2,000 creates/s, 6,500 gets/s); on etcd >= 1.5x".
    if (backend === 'embedded') return { min: kind === 'creates' ? 2000 : 6500, why: '3x' };
    return { min: Math.round(ref * 1.5), why: '1.5x' };
  }
  return { min: ref, why: '1x' };
}

/** RSS target for the embedded server process at 50,000 ConfigMaps: half of 700 + 260 MB. */
export const RSS_TARGET_MB = (REFERENCE.serverRssMB + REFERENCE.etcdRssMB) / 2;

export type Verdict = 'PASS' | 'MISS' | '';

export interface Row {
  readonly measurement: string;
  readonly backend: BackendName | '-';
  readonly frontend: string;
  readonly value: string;
  readonly p50?: string;
  readonly p99?: string;
  readonly reference?: string;
  readonly target?: string;
  readonly verdict?: Verdict;
  readonly note?: string;
}

export const mb = (bytes: number): string => (Number.isFinite(bytes) ? `${fmtInt(bytes / 1e6)} MB` : '—');
export const mib = (bytes: number): string => (Number.isFinite(bytes) ? `${fmtInt(bytes / 2 ** 20)} MiB` : '—');
export const rate = (r: number, unit: string): string => `${fmtInt(r)} ${unit}/s`;
export const ms = (x: number): string => fmtDuration(x);
export { fmtInt, fmtNum };

export class Report {
  readonly rows: Array<Row | { section: string }> = [];
  readonly anomalies: string[] = [];
  readonly failures: string[] = [];
  readonly backendNotes: string[] = [];

  section(title: string): void {
    this.rows.push({ section: title });
  }

  add(row: Row): void {
    this.rows.push(row);
    const line = [
      row.measurement,
      row.backend,
      row.frontend,
      row.value,
      row.p50 ? `p50 ${row.p50}` : '',
      row.p99 ? `p99 ${row.p99}` : '',
      row.target ? `${row.verdict} (${row.target})` : '',
      row.note ?? '',
    ]
      .filter((x) => x !== '')
      .join(' | ');
    console.log(`  ${line}`);
  }

  anomaly(text: string): void {
    this.anomalies.push(text);
    console.log(`  ! ${text}`);
  }

  verdicts(): { pass: number; miss: number } {
    let pass = 0;
    let miss = 0;
    for (const r of this.rows) {
      if ('section' in r) continue;
      if (r.verdict === 'PASS') pass++;
      if (r.verdict === 'MISS') miss++;
    }
    return { pass, miss };
  }

  table(): Table {
    return {
      headers: ['measurement', 'backend', 'front end', 'value', 'p50', 'p99', 'reference (v1.25 + etcd 3.4)', 'target', 'result', 'note'],
      rows: this.rows.map((r) =>
        'section' in r
          ? r
          : [r.measurement, r.backend, r.frontend, r.value, r.p50 ?? '', r.p99 ?? '', r.reference ?? '', r.target ?? '', r.verdict ?? '', r.note ?? ''],
      ),
      alignRight: new Set([3, 4, 5]),
    };
  }
}
