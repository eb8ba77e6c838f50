/**
 * The JSONPath subset printer columns and scale paths use (the original
 * accepts kubectl's JSONPath; CRD columns are "simple" paths in practice):
 * `.a.b`, `.a[0]`, `.a[*].b`, `.a[?(@.type=="Ready")].status`, and keys
 * with dots in brackets (`.metadata.labels['app\.x/y']`).
 */
type Step = { kind: 'field'; name: string } | { kind: 'index'; at: number } | { kind: 'all' } | { kind: 'filter'; path: string[]; op: '==' | '!='; value: string };

export class JsonPathError extends Error {}

const cache = new Map<string, Step[]>();

export function compileJsonPath(path: string): Step[] {
  const hit = cache.get(path);
  if (hit !== undefined) return hit;
  let p = path.trim();
  if (p.startsWith('{') && p.endsWith('}')) p = p.slice(1, -1);
  if (p.startsWith('$')) p = p.slice(1);
  const steps: Step[] = [];
  let i = 0;
  while (i < p.length) {
    const c = p[i]!;
    if (c === '.') {
      let j = i + 1;
      while (j < p.length && p[j] !== '.' && p[j] !== '[') j++;
      const name = p.slice(i + 1, j);
      if (name !== '') steps.push({ kind: 'field', name });
      i = j;
    } else if (c === '[') {
      const end = closing(p, i);
      const inner = p.slice(i + 1, end).trim();
      i = end + 1;
      if (inner === '*') steps.push({ kind: 'all' });
      else if (/^-?\d+$/.test(inner)) steps.push({ kind: 'index', at: Number(inner) });
      else if (/^'.*'$|^".*"$/.test(inner)) steps.push({ kind: 'field', name: inner.slice(1, -1).replace(/\\\./g, '.') });
      else {
        const m = /^\?\(@((?:\.[A-Za-z0-9_-]+)+)\s*(==|!=)\s*(?:"([^"]*)"|'([^']*)'|([^)\s]+))\)$/.exec(inner);
        if (m === null) throw new JsonPathError(`unsupported JSONPath element [${inner}]`);
        steps.push({ kind: 'filter', path: m[1]!.slice(1).split('.'), op: m[2] as '==' | '!=', value: m[3] ?? m[4] ?? m[5] ?? '' });
      }
    } else {
      throw new JsonPathError(`unexpected ${JSON.stringify(c)} in JSONPath ${JSON.stringify(path)}`);
    }
  }
  if (cache.size > 10_000) cache.clear();
  cache.set(path, steps);
  return steps;
}

function closing(p: string, open: number): number {
  let quote = '';
  for (let i = open + 1; i < p.length; i++) {
    const c = p[i]!;
    if (quote !== '') {
      if (c === '\\') i++;
      else if (c === quote) quote = '';
    } else if (c === '"' || c === "'") quote = c;
    else if (c === ']') return i;
  }
  throw new JsonPathError('unterminated [');
}

function isObj(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Every value `path` reaches in `root` (none when it reaches nothing). */
export function findResults(root: unknown, path: string): unknown[] {
  let cur: unknown[] = [root];
  for (const step of compileJsonPath(path)) {
    const next: unknown[] = [];
    for (const v of cur) {
      switch (step.kind) {
        case 'field':
          if (isObj(v) && step.name in v) next.push(v[step.name]);
          break;
        case 'index':
          if (Array.isArray(v)) {
            const at = step.at < 0 ? v.length + step.at : step.at;
            if (at >= 0 && at < v.length) next.push(v[at]);
          }
          break;
        case 'all':
          if (Array.isArray(v)) next.push(...v);
          else if (isObj(v)) next.push(...Object.values(v));
          break;
        case 'filter':
          if (Array.isArray(v)) {
            for (const item of v) {
              let x: unknown = item;
              for (const k of step.path) x = isObj(x) ? x[k] : undefined;
              const text = x === undefined ? undefined : typeof x === 'string' ? x : JSON.stringify(x);
              if ((step.op === '==') === (text === step.value)) next.push(item);
            }
          }
          break;
      }
    }
    cur = next;
  }
  return cur;
}
