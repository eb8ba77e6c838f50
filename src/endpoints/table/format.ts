/**
 * Cell formatting shared by the printers, reproducing the original's helpers
 * (util/duration.HumanDuration, labels.FormatLabels,
 * metav1.FormatLabelSelector, layoutContainerCells) so cells read exactly
 * as the original's do. The server computes ages itself: kubectl prints
 * cells verbatim and never reformats them.
 */
import { labelSelectorFromObject, labelSelectorFromSet, type LabelSelectorObject } from '../../selectors/index.ts';
import { isObj, objs, str, strMap } from './json.ts';

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

/** duration.HumanDuration: ~2-3 significant figures ("45s", "5m30s", "3h", "12d"). */
export function humanDuration(ms: number): string {
  const seconds = Math.trunc(ms / SECOND);
  // Up to a second in the future is clock skew, shown as "0s".
  if (seconds < -1) return '<invalid>';
  if (seconds < 0) return '0s';
  if (seconds < 120) return `${seconds}s`;
  const minutes = Math.trunc(ms / MINUTE);
  if (minutes < 10) {
    const s = seconds % 60;
    return s === 0 ? `${minutes}m` : `${minutes}m${s}s`;
  }
  if (minutes < 180) return `${minutes}m`;
  const hours = Math.trunc(ms / HOUR);
  if (hours < 8) {
    const m = minutes % 60;
    return m === 0 ? `${hours}h` : `${hours}h${m}m`;
  }
  if (hours < 48) return `${hours}h`;
  if (hours < 24 * 8) {
    const h = hours % 24;
    return h === 0 ? `${Math.trunc(hours / 24)}d` : `${Math.trunc(hours / 24)}d${h}h`;
  }
  if (hours < 24 * 365 * 2) return `${Math.trunc(hours / 24)}d`;
  if (hours < 24 * 365 * 8) {
    const dy = Math.trunc(hours / 24) % 365;
    const y = Math.trunc(hours / 24 / 365);
    return dy === 0 ? `${y}y` : `${y}y${dy}d`;
  }
  return `${Math.trunc(hours / 24 / 365)}y`;
}

/**
 * Ages against one instant. Timestamps repeat a lot within a list (objects
 * created in the same second), so parsed values are memoised per table.
 */
export class Clock {
  readonly nowMs: number;
  private readonly parsed = new Map<string, number>();
  private readonly ages = new Map<string, string>();

  constructor(now: Date) {
    this.nowMs = now.getTime();
  }

  /** Milliseconds since the epoch, or undefined for an absent (zero) or unreadable time. */
  parse(ts: unknown): number | undefined {
    if (typeof ts !== 'string' || ts === '') return undefined;
    let ms = this.parsed.get(ts);
    if (ms === undefined) {
      ms = Date.parse(ts);
      this.parsed.set(ts, ms);
    }
    return Number.isNaN(ms) ? undefined : ms;
  }

  /** translateTimestampSince: "<unknown>" for a zero time. */
  since(ts: unknown): string {
    if (typeof ts !== 'string') return '<unknown>';
    let age = this.ages.get(ts);
    if (age === undefined) {
      const ms = this.parse(ts);
      age = ms === undefined ? '<unknown>' : humanDuration(this.nowMs - ms);
      this.ages.set(ts, age);
    }
    return age;
  }

  /** The age of an already parsed instant. */
  sinceMs(ms: number): string {
    return humanDuration(this.nowMs - ms);
  }
}

/** labels.FormatLabels: `a=b,c=d` sorted by key, `<none>` when empty. */
export function formatLabels(map: unknown): string {
  const s = labelSelectorFromSet(strMap(map)).toString();
  return s === '' ? '<none>' : s;
}

/** The selector string of metav1.LabelSelectorAsSelector; `bad` when it is invalid. */
function selectorString(sel: unknown, bad: string): string {
  try {
    return labelSelectorFromObject(isObj(sel) ? (sel as LabelSelectorObject) : null).toString();
  } catch {
    return bad;
  }
}

/** metav1.FormatLabelSelector: `<none>` for an empty or absent selector, `<error>` for an invalid one. */
export function formatLabelSelector(sel: unknown): string {
  const s = selectorString(sel, '<error>');
  return s === '' ? '<none>' : s;
}

/** Deployments print selector.String() directly: "" when empty, `<invalid>` when invalid. */
export function labelSelectorText(sel: unknown): string {
  return selectorString(sel, '<invalid>');
}

/** layoutContainerCells: container names and images, comma-joined. */
export function containerCells(containers: unknown): [names: string, images: string] {
  const list = objs(containers);
  return [list.map((c) => str(c['name'])).join(','), list.map((c) => str(c['image'])).join(',')];
}

/** intstr.IntOrString.String(). */
export function intOrString(v: unknown): string {
  if (typeof v === 'number') return String(Math.trunc(v));
  return typeof v === 'string' ? v : '';
}

/**
 * A resource.Quantity as the original prints it. Stored quantities are
 * printed as written (the original prints its canonical form, which equals
 * the written form for the usual `10Gi`, `500m`, `2`).
 */
export function quantity(v: unknown): string {
  if (typeof v === 'number') return String(v);
  return typeof v === 'string' && v !== '' ? v : '0';
}

/** printBoolPtr: "True", "False", or "<unset>" for an absent value. */
export function boolPtr(v: unknown): string {
  if (v === true) return 'True';
  if (v === false) return 'False';
  return '<unset>';
}

/** A list shortened to `max` entries plus "+ N more..." (listWithMoreString). */
export function listWithMore(list: readonly string[], max: number, total: number, empty: string): string {
  const ret = list.slice(0, max).join(',');
  if (total > max) return `${ret} + ${total - max} more...`;
  return ret === '' ? empty : ret;
}
