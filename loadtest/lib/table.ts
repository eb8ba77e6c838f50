/** Plain-text and markdown tables. */

export interface Table {
  readonly headers: readonly string[];
  /** A row is cells, or a section title spanning the table. */
  readonly rows: ReadonlyArray<readonly string[] | { readonly section: string }>;
  /** Columns to right-align (by index). */
  readonly alignRight?: ReadonlySet<number>;
}

const width = (s: string): number => [...s].length;

function pad(s: string, w: number, right: boolean): string {
  const fill = ' '.repeat(Math.max(0, w - width(s)));
  return right ? fill + s : s + fill;
}

export function renderText(t: Table): string {
  const widths = t.headers.map((h) => width(h));
  for (const r of t.rows) {
    if (!Array.isArray(r)) continue;
    (r as readonly string[]).forEach((c, i) => (widths[i] = Math.max(widths[i] ?? 0, width(c))));
  }
  const right = t.alignRight ?? new Set<number>();
  const line = (cells: readonly string[]): string =>
    cells.map((c, i) => pad(c, widths[i] ?? 0, right.has(i))).join('  ').trimEnd();
  const total = widths.reduce((a, b) => a + b, 0) + 2 * (widths.length - 1);
  const out = [line(t.headers), '-'.repeat(total)];
  for (const r of t.rows) {
    if (Array.isArray(r)) out.push(line(r as readonly string[]));
    else out.push(`-- ${(r as { section: string }).section} ` + '-'.repeat(Math.max(0, total - width((r as { section: string }).section) - 4)));
  }
  return out.join('\n');
}

const mdCell = (s: string): string => s.replace(/\|/g, '\\|');

export function renderMarkdown(t: Table): string {
  const right = t.alignRight ?? new Set<number>();
  const out = [
    `| ${t.headers.map(mdCell).join(' | ')} |`,
    `| ${t.headers.map((_, i) => (right.has(i) ? '---:' : '---')).join(' | ')} |`,
  ];
  for (const r of t.rows) {
    if (Array.isArray(r)) out.push(`| ${(r as readonly string[]).map(mdCell).join(' | ')} |`);
    else {
      const cells = t.headers.map((_, i) => (i === 0 ? `**${mdCell((r as { section: string }).section)}**` : ''));
      out.push(`| ${cells.join(' | ')} |`);
    }
  }
  return out.join('\n');
}
