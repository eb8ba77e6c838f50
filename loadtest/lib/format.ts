/** Number formatting for benchmark tables. */

const grouped = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 });

/** 12,345 */
export function fmtInt(n: number): string {
  return Number.isFinite(n) ? grouped.format(Math.round(n)) : '—';
}

/** Three significant digits, grouped: 0.0123, 1.23, 12.3, 123, 1,234. */
export function fmtNum(n: number): string {
  if (!Number.isFinite(n)) return '—';
  const a = Math.abs(n);
  if (a >= 1000) return grouped.format(Math.round(n));
  if (a >= 100) return n.toFixed(0);
  if (a >= 10) return n.toFixed(1);
  if (a >= 1) return n.toFixed(2);
  if (a === 0) return '0';
  return n.toPrecision(3);
}

/** A duration given in ms, shown in µs, ms or s as fits. */
export function fmtDuration(ms: number): string {
  if (!Number.isFinite(ms)) return '—';
  if (ms < 1) return `${fmtNum(ms * 1000)} µs`;
  if (ms < 1000) return `${fmtNum(ms)} ms`;
  return `${fmtNum(ms / 1000)} s`;
}

export function fmtBytes(bytes: number): string {
  if (!Number.isFinite(bytes)) return '—';
  const a = Math.abs(bytes);
  if (a >= 2 ** 30) return `${fmtNum(bytes / 2 ** 30)} GiB`;
  if (a >= 2 ** 20) return `${fmtNum(bytes / 2 ** 20)} MiB`;
  if (a >= 2 ** 10) return `${fmtNum(bytes / 2 ** 10)} KiB`;
  return `${fmtInt(bytes)} B`;
}

/** 0.456 -> "46%" */
export function fmtPercent(fraction: number): string {
  if (!Number.isFinite(fraction)) return '—';
  const p = fraction * 100;
  return `${p >= 10 ? p.toFixed(0) : p.toFixed(1)}%`;
}

/** One row of a Markdown table: `| a | b |`. */
export function mdRow(cells: readonly string[]): string {
  return `| ${cells.join(' | ')} |`;
}
