/**
 * Defensive reads of a pod's metadata and spec as JSON: checks see pods and
 * the templates of workload objects, whose shapes only the type's own
 * validation vouches for (and templates are checked less than pods), so
 * every read tolerates a missing or wrongly typed field instead of throwing.
 */

export type Json = Record<string, unknown>;

export function asObject(v: unknown): Json | undefined {
  return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Json) : undefined;
}

export function asArray(v: unknown): readonly unknown[] {
  return Array.isArray(v) ? v : [];
}

export function asString(v: unknown): string {
  return typeof v === 'string' ? v : '';
}

/** What a check reads: the pod's (or template's) metadata and spec. */
export interface PodView {
  readonly annotations: Readonly<Record<string, unknown>>;
  readonly spec: Json;
}

export function podView(metadata: unknown, spec: unknown): PodView {
  const annotations = asObject(asObject(metadata)?.['annotations']) ?? {};
  return { annotations, spec: asObject(spec) ?? {} };
}

export interface ContainerView {
  readonly name: string;
  readonly raw: Json;
  /** securityContext, or undefined when absent (nil in the original). */
  readonly sc: Json | undefined;
}

/** Init containers, then containers, then ephemeral containers, as the original's visitContainers. */
export function containers(spec: Json): ContainerView[] {
  const out: ContainerView[] = [];
  for (const key of ['initContainers', 'containers', 'ephemeralContainers']) {
    for (const c of asArray(spec[key])) {
      const raw = asObject(c);
      if (raw === undefined) continue;
      out.push({ name: asString(raw['name']), raw, sc: asObject(raw['securityContext']) });
    }
  }
  return out;
}

/** spec.securityContext, or undefined. */
export function podSecurityContext(spec: Json): Json | undefined {
  return asObject(spec['securityContext']);
}

/** `field` of a security context as a tri-state boolean (undefined: unset). */
export function boolField(sc: Json | undefined, field: string): boolean | undefined {
  const v = sc?.[field];
  return typeof v === 'boolean' ? v : undefined;
}

/** Whether spec.os.name is windows (checks that Windows pods cannot satisfy skip them from v1.25). */
export function isWindows(spec: Json): boolean {
  return asString(asObject(spec['os'])?.['name']) === 'windows';
}
