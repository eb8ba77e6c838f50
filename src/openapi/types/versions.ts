/**
 * The older versions a group still serves (spec 9.3), declared once as
 * "this version is that version's kinds, with these differences" rather than
 * field by field: the kinds named, and every struct and Protobuf supplement
 * message of the same package they reach, are copied into the older
 * version's package (`io.<prefix>.api.batch.v1beta1.CronJobSpec`), with the
 * fields the old version names differently renamed and the messages it
 * numbers differently replaced. Types of other packages (core, meta) are
 * shared, as in the original's generated.proto.
 *
 * Everything that reads the DSL or the supplement (OpenAPI, Protobuf, the
 * typed decoder) sees the copies through `types/index.ts` and
 * `protobuf/supplement/tables.ts`.
 */
import { INTERNAL_SCHEMA_PREFIX, apiGroup } from '../../naming/index.ts';
import type { FieldDecl, StructDecl, TypeExpr } from '../schema-dsl.ts';
import type { FieldRow } from '../../protobuf/supplement/rows.ts';

export interface VersionAlias {
  /** Package of the original's Go types: `batch`, `flowcontrol`. */
  readonly pkg: string;
  readonly from: string;
  readonly to: string;
  /** The group the copied kinds are served in. */
  readonly group: string;
  readonly kinds: readonly string[];
  /** Struct (short name) -> JSON field renames, from-version name -> this version's name. */
  readonly renames?: Readonly<Record<string, Readonly<Record<string, string>>>>;
  /** Supplement messages (short name) whose fields differ: the whole row list, types in `from`'s package. */
  readonly rows?: Readonly<Record<string, readonly FieldRow[]>>;
  /** Go presence of messages (short name) whose Go fields differ. */
  readonly presence?: Readonly<Record<string, string>>;
}

const d = (pkg: string): string => `${INTERNAL_SCHEMA_PREFIX}.api.${pkg}`;

/** The versions served besides the ones declared field by field. */
export const VERSION_ALIASES: readonly VersionAlias[] = [
  { pkg: 'batch', from: 'v1', to: 'v1beta1', group: 'batch', kinds: ['CronJob'] },
  { pkg: 'autoscaling', from: 'v2', to: 'v2beta2', group: 'autoscaling', kinds: ['HorizontalPodAutoscaler'] },
  { pkg: 'policy', from: 'v1', to: 'v1beta1', group: 'policy', kinds: ['PodDisruptionBudget', 'Eviction'] },
  {
    pkg: 'discovery', from: 'v1', to: 'v1beta1', group: apiGroup('discovery'), kinds: ['EndpointSlice'],
    // v1beta1 has `topology` (with the zone and hostname in it) and numbers hints 7.
    rows: {
      Endpoint: [
        ['addresses', 1, '[]string'],
        ['conditions', 2, `${d('discovery.v1')}.EndpointConditions`],
        ['hostname', 3, 'string'],
        ['targetRef', 4, `${d('core.v1')}.ObjectReference`],
        ['topology', 5, '{}string'],
        ['nodeName', 6, 'string'],
        ['hints', 7, `${d('discovery.v1')}.EndpointHints`],
      ],
    },
    presence: { Endpoint: 'l1 V2 P3 P4 L5 P6 P7' },
  },
  { pkg: 'events', from: 'v1', to: 'v1beta1', group: apiGroup('events'), kinds: ['Event'] },
  { pkg: 'node', from: 'v1', to: 'v1beta1', group: apiGroup('node'), kinds: ['RuntimeClass'] },
  { pkg: 'storage', from: 'v1', to: 'v1beta1', group: apiGroup('storage'), kinds: ['CSIStorageCapacity'] },
  ...(['v1beta2', 'v1beta1'] as const).map(
    (to): VersionAlias => ({
      pkg: 'flowcontrol', from: 'v1', to, group: apiGroup('flowcontrol.apiserver'), kinds: ['FlowSchema', 'PriorityLevelConfiguration'],
      // v1 renamed assuredConcurrencyShares (a value in the betas) to nominalConcurrencyShares (a pointer).
      renames: { LimitedPriorityLevelConfiguration: { nominalConcurrencyShares: 'assuredConcurrencyShares' } },
      presence: { LimitedPriorityLevelConfiguration: 'v1 V2 P3 P4' },
    }),
  ),
  {
    pkg: 'authorization', from: 'v1', to: 'v1beta1', group: apiGroup('authorization'),
    kinds: ['SubjectAccessReview', 'SelfSubjectAccessReview', 'LocalSubjectAccessReview', 'SelfSubjectRulesReview'],
    renames: { SubjectAccessReviewSpec: { groups: 'group' } },
  },
  { pkg: 'authentication', from: 'v1', to: 'v1beta1', group: apiGroup('authentication'), kinds: ['TokenReview'] },
  {
    pkg: 'admissionregistration', from: 'v1', to: 'v1beta1', group: apiGroup('admissionregistration'),
    kinds: ['MutatingWebhookConfiguration', 'ValidatingWebhookConfiguration'],
  },
  { pkg: 'certificates', from: 'v1', to: 'v1beta1', group: apiGroup('certificates'), kinds: ['CertificateSigningRequest'] },
];

export interface SupplementTables {
  readonly messages: Readonly<Record<string, readonly FieldRow[]>>;
  readonly opaqueFieldTypes: Readonly<Record<string, Readonly<Record<string, string>>>>;
  readonly presence: Readonly<Record<string, string>>;
  readonly kindsWithoutList: ReadonlySet<string>;
}

export interface AliasedTables extends SupplementTables {
  readonly decls: readonly StructDecl[];
}

function typeRefs(t: TypeExpr, out: string[]): void {
  if (t.kind === 'ref') out.push(t.name);
  else if (t.kind === 'array') typeRefs(t.items, out);
  else if (t.kind === 'map') typeRefs(t.values, out);
}

/** `[]x`, `{}x` or `x` -> `x`. */
function rowTarget(type: string): string {
  return type.replace(/^(\[\]|\{\})/, '');
}

/** The copies every alias adds, computed from the declared types and the supplement. */
export function aliasTables(decls: readonly StructDecl[], sup: SupplementTables, aliases: readonly VersionAlias[] = VERSION_ALIASES): AliasedTables {
  const byName = new Map(decls.map((x) => [x.name, x]));
  const out = { decls: [] as StructDecl[], messages: {} as Record<string, readonly FieldRow[]>, opaqueFieldTypes: {} as Record<string, Record<string, string>>, presence: {} as Record<string, string>, kindsWithoutList: new Set<string>() };
  for (const a of aliases) {
    const fromPrefix = `${d(a.pkg)}.${a.from}.`;
    const toPrefix = `${d(a.pkg)}.${a.to}.`;
    const short = (name: string): string => name.slice(fromPrefix.length);
    const rowsOf = (name: string): readonly FieldRow[] | undefined => a.rows?.[short(name)] ?? sup.messages[name];
    // Every name of the package the kinds reach, through declarations, opaque fields and supplement rows.
    const reached = new Set<string>();
    const queue = a.kinds.map((k) => fromPrefix + k);
    while (queue.length > 0) {
      const name = queue.pop()!;
      if (reached.has(name) || !name.startsWith(fromPrefix)) continue;
      reached.add(name);
      const refs: string[] = [];
      const decl = byName.get(name);
      if (decl !== undefined) {
        for (const f of Object.values(decl.fields)) typeRefs(f.type, refs);
        for (const e of decl.embeds ?? []) refs.push(e.name);
      }
      for (const t of Object.values(sup.opaqueFieldTypes[name] ?? {})) refs.push(rowTarget(t));
      for (const [, , t] of rowsOf(name) ?? []) refs.push(rowTarget(t));
      queue.push(...refs);
    }
    const rename = (name: string): string => (reached.has(name) ? toPrefix + short(name) : name);
    const renameType = (type: string): string => {
      const m = /^(\[\]|\{\})?(.*)$/.exec(type)!;
      return (m[1] ?? '') + rename(m[2]!);
    };
    const renameExpr = (t: TypeExpr): TypeExpr => {
      if (t.kind === 'ref') return { kind: 'ref', name: rename(t.name) };
      if (t.kind === 'array') return { kind: 'array', items: renameExpr(t.items) };
      if (t.kind === 'map') return { kind: 'map', values: renameExpr(t.values) };
      return t;
    };
    for (const name of [...reached].sort()) {
      const s = short(name);
      const fieldRenames = a.renames?.[s] ?? {};
      const decl = byName.get(name);
      if (decl !== undefined) {
        const fields: Record<string, FieldDecl> = {};
        for (const [k, f] of Object.entries(decl.fields)) fields[fieldRenames[k] ?? k] = { ...f, type: renameExpr(f.type) };
        const copy: StructDecl = {
          ...decl,
          name: toPrefix + s,
          fields,
          ...(decl.embeds ? { embeds: decl.embeds.map((e) => ({ ...e, name: rename(e.name) })) } : {}),
        };
        // Only the kinds named are served here; other kinds the copies reach are plain structs.
        if (decl.gvk !== undefined) {
          if (a.kinds.includes(s)) (copy as { gvk?: StructDecl['gvk'] }).gvk = { group: a.group, version: a.to, kind: s };
          else delete (copy as { gvk?: StructDecl['gvk'] }).gvk;
        }
        out.decls.push(copy);
      }
      const rows = rowsOf(name);
      if (rows !== undefined) out.messages[toPrefix + s] = rows.map(([json, n, t]) => [fieldRenames[json] ?? json, n, renameType(t)] as const);
      const opaque = sup.opaqueFieldTypes[name];
      if (opaque !== undefined) {
        const copy: Record<string, string> = {};
        for (const [k, t] of Object.entries(opaque)) copy[fieldRenames[k] ?? k] = renameType(t);
        out.opaqueFieldTypes[toPrefix + s] = copy;
      }
      const presence = a.presence?.[s] ?? sup.presence[name];
      if (presence !== undefined) out.presence[toPrefix + s] = presence;
      if (sup.kindsWithoutList.has(name)) out.kindsWithoutList.add(toPrefix + s);
    }
  }
  return out;
}
