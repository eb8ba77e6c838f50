/**
 * Content negotiation (spec 4.6): which representation a response takes
 * from the Accept header, and which format a request body is in from its
 * Content-Type. Follows the original's handlers/negotiation package: Accept
 * clauses in preference order, each tried against the server's media types
 * in the server's order (JSON first, so `*` wildcards pick JSON), and the
 * first clause whose parameters the endpoint can honour wins. A clause the
 * endpoint cannot honour (a Table on a POST, `as=Table` with protobuf) is
 * skipped, which is how kubectl's "Table, else JSON" fallback lists work.
 *
 * Table and PartialObjectMetadata conversions are asked for with
 * `as=<Kind>;g=<group>;v=<version>`. Both `meta.<suffix>` (spec 2.3) and the
 * original's `meta.k8s.io` (what real kubectl sends and decodes) are
 * accepted; the answer is given in the group the client named.
 */
import { errors } from '../api/status.ts';
import { names } from '../naming/index.ts';

export const JSON_MEDIA_TYPE = 'application/json';
export const YAML_MEDIA_TYPE = 'application/yaml';
/** This flavor's Protobuf name (the original's own in the kubernetes flavor). */
export const ORCH_PROTOBUF_MEDIA_TYPE: string = names.protobufMediaType;
export const KUBERNETES_PROTOBUF_MEDIA_TYPE = 'application/vnd.kubernetes.protobuf';

export type ProtobufMediaType = string;

/** The groups a Table / PartialObjectMetadata may be asked for in. */
export const META_GROUPS: readonly string[] = names.acceptedMetaGroups;
export type MetaGroup = string;
export const META_VERSIONS = ['v1', 'v1beta1'] as const;
export type MetaVersion = (typeof META_VERSIONS)[number];

/** metav1.IncludeObjectPolicy: what each Table row's `object` holds. */
export type IncludeObject = 'None' | 'Metadata' | 'Object';

export type Negotiated =
  /** The resource itself (or its list / watch events) as JSON. */
  | { kind: 'json'; contentType: string }
  /** The resource in the protobuf envelope of spec 4.6, labelled with the media type the client named. */
  | { kind: 'protobuf'; mediaType: ProtobufMediaType; contentType: string }
  /** A Table (spec 2.3), always JSON. `includeObject` is validated and defaulted (Metadata). */
  | { kind: 'table'; group: MetaGroup; version: MetaVersion; includeObject: IncludeObject; contentType: string }
  /**
   * PartialObjectMetadata (`list: false`) or PartialObjectMetadataList
   * (`list: true`); only offered when the caller allows it. The original
   * answers 406 at transform time when `list` does not fit the request
   * (a list asked as PartialObjectMetadata and vice versa).
   */
  | {
      kind: 'partial-metadata';
      list: boolean;
      group: MetaGroup;
      version: MetaVersion;
      encoding: 'json' | ProtobufMediaType;
      contentType: string;
    };

export interface NegotiateOptions {
  /** Built-in types; false for extension types and aggregated APIs (spec 4.6). */
  protobufAllowed: boolean;
  /** GET (get, list, watch) on a resource that can be shown as a Table. */
  tableAllowed: boolean;
  /** A watch: protobuf answers carry `;stream=watch` in their Content-Type. */
  watch: boolean;
  /** Offer PartialObjectMetadata(List) conversions (client-go's metadata client asks for them). */
  partialMetadataAllowed?: boolean;
  /** The raw `includeObject` query value; validated only when a Table is chosen. */
  includeObject?: string | null | undefined;
}

/** One Accept clause: `type/subtype;param=value;q=0.5`. */
export interface AcceptClause {
  type: string;
  subType: string;
  q: number;
  params: Readonly<Record<string, string>>;
}

/**
 * Parses an Accept header into clauses, most preferred first: by q, then
 * concrete types before `*` ones, header order otherwise. Malformed clauses
 * are dropped, as goautoneg drops them; unlike goautoneg, `q=0` means "not
 * acceptable" (RFC 9110 12.4.2) and drops the clause too. A lone `*`
 * (seen in the wild) means any type.
 */
export function parseAccept(header: string): AcceptClause[] {
  const clauses: AcceptClause[] = [];
  for (const part of header.split(',')) {
    const pieces = part.split(';');
    const range = pieces[0]!.trim().toLowerCase();
    let type: string;
    let subType: string;
    if (range === '*') {
      type = '*';
      subType = '*';
    } else {
      const slash = range.indexOf('/');
      if (slash <= 0 || slash === range.length - 1 || range.indexOf('/', slash + 1) !== -1) continue;
      type = range.slice(0, slash).trim();
      subType = range.slice(slash + 1).trim();
      if (type === '' || subType === '') continue;
    }
    let q = 1;
    // No prototype: a parameter named `__proto__` or `constructor` is just a parameter.
    const params = Object.create(null) as Record<string, string>;
    for (let i = 1; i < pieces.length; i++) {
      const eq = pieces[i]!.indexOf('=');
      if (eq < 0) continue;
      const key = pieces[i]!.slice(0, eq).trim().toLowerCase();
      const value = unquote(pieces[i]!.slice(eq + 1).trim());
      if (key === 'q') {
        const n = Number(value);
        q = Number.isFinite(n) ? Math.min(Math.max(n, 0), 1) : 0;
      } else if (key !== '') {
        params[key] = value;
      }
    }
    if (q <= 0) continue;
    clauses.push({ type, subType, q, params });
  }
  const rank = (c: AcceptClause): number => (c.type === '*' ? 2 : c.subType === '*' ? 1 : 0);
  // Array.prototype.sort is stable, so equal clauses keep header order.
  return clauses.sort((a, b) => b.q - a.q || rank(a) - rank(b));
}

/** Accept headers remembered, parsed: clients send the same one on every request. Bounded in count and length. */
const parsedAccepts = new Map<string, readonly AcceptClause[]>();
const MAX_REMEMBERED_ACCEPTS = 64;
const MAX_REMEMBERED_ACCEPT_LENGTH = 512;

/** parseAccept, remembered for the headers clients repeat (the clauses are shared: never modify them). */
function acceptClauses(header: string): readonly AcceptClause[] {
  const known = parsedAccepts.get(header);
  if (known !== undefined) return known;
  const clauses = parseAccept(header);
  if (header.length <= MAX_REMEMBERED_ACCEPT_LENGTH) {
    // Many distinct headers (a client making them up): start over rather than grow.
    if (parsedAccepts.size >= MAX_REMEMBERED_ACCEPTS) parsedAccepts.clear();
    for (const c of clauses) Object.freeze(c.params);
    parsedAccepts.set(header, Object.freeze(clauses.map((c) => Object.freeze(c))));
  }
  return clauses;
}

function unquote(v: string): string {
  return v.length >= 2 && v.startsWith('"') && v.endsWith('"') ? v.slice(1, -1) : v;
}

/** A media type the server can write, in the server's order of preference. */
interface Offer {
  type: string;
  subType: string;
  mediaType: typeof JSON_MEDIA_TYPE | ProtobufMediaType;
}

const JSON_OFFER: Offer = { type: 'application', subType: 'json', mediaType: JSON_MEDIA_TYPE };
// One offer per distinct name: the two are the same in the kubernetes flavor.
const PROTOBUF_OFFERS: readonly Offer[] = [...new Set([KUBERNETES_PROTOBUF_MEDIA_TYPE, ORCH_PROTOBUF_MEDIA_TYPE])].map((mediaType) => ({
  type: 'application',
  subType: mediaType.slice('application/'.length),
  mediaType,
}));

const WITH_PROTOBUF: readonly Offer[] = [JSON_OFFER, ...PROTOBUF_OFFERS];
const JSON_ONLY: readonly Offer[] = [JSON_OFFER];

function offersFor(protobufAllowed: boolean): readonly Offer[] {
  return protobufAllowed ? WITH_PROTOBUF : JSON_ONLY;
}

/** The media types a 406 lists (the original lists its serializers). */
export function acceptedMediaTypes(protobufAllowed: boolean): string[] {
  return offersFor(protobufAllowed).map((o) => o.mediaType);
}

function isMetaGroup(g: string): g is MetaGroup {
  return (META_GROUPS as readonly string[]).includes(g);
}

function isMetaVersion(v: string): v is MetaVersion {
  return (META_VERSIONS as readonly string[]).includes(v);
}

/**
 * What one clause asks of one offer, or undefined when the endpoint cannot
 * honour its parameters (acceptMediaTypeOptions + AllowsMediaTypeTransform).
 */
function honour(params: Readonly<Record<string, string>>, offer: Offer, opts: NegotiateOptions): Negotiated | undefined {
  // stream=watch is the only stream schema, and every offer here can stream.
  const stream = params['stream'];
  if (stream !== undefined && stream !== '' && stream !== 'watch') return undefined;
  // `sv` pins the version of the meta group used for generic output; only v1 exists.
  const sv = params['sv'];
  if (sv !== undefined && sv !== '' && sv !== 'v1') return undefined;

  const as = params['as'];
  const g = params['g'];
  const v = params['v'];
  const plain = offer.mediaType === JSON_MEDIA_TYPE ? 'application/json' : opts.watch ? `${offer.mediaType};stream=watch` : offer.mediaType;
  if (as === undefined && g === undefined && v === undefined) {
    return offer.mediaType === JSON_MEDIA_TYPE
      ? { kind: 'json', contentType: plain }
      : { kind: 'protobuf', mediaType: offer.mediaType, contentType: plain };
  }
  // Any of as/g/v asks for a conversion; it must name a meta kind in full.
  if (g === undefined || v === undefined || !isMetaGroup(g) || !isMetaVersion(v)) return undefined;
  switch (as) {
    case 'Table':
      // Tables are written as JSON only (the original also allows YAML, which we do not serve).
      if (!opts.tableAllowed || offer.mediaType !== JSON_MEDIA_TYPE) return undefined;
      return { kind: 'table', group: g, version: v, includeObject: parseIncludeObject(opts.includeObject), contentType: 'application/json' };
    case 'PartialObjectMetadata':
    case 'PartialObjectMetadataList':
      if (opts.partialMetadataAllowed !== true) return undefined;
      return {
        kind: 'partial-metadata',
        list: as === 'PartialObjectMetadataList',
        group: g,
        version: v,
        encoding: offer.mediaType === JSON_MEDIA_TYPE ? 'json' : offer.mediaType,
        contentType: plain,
      };
    default:
      return undefined;
  }
}

/**
 * Chooses the response representation. No (or a blank) Accept header means
 * JSON. Throws the 406 NotAcceptable Status when no clause fits, and the
 * 400 of parseIncludeObject when a Table is chosen with a bad includeObject.
 */
export function negotiate(accept: string | undefined, opts: NegotiateOptions): Negotiated {
  const offers = offersFor(opts.protobufAllowed);
  if (accept === undefined || accept.trim() === '') return { kind: 'json', contentType: 'application/json' };
  for (const clause of acceptClauses(accept)) {
    for (const offer of offers) {
      const matches =
        (clause.type === offer.type && (clause.subType === offer.subType || clause.subType === '*')) ||
        (clause.type === '*' && clause.subType === '*');
      if (!matches) continue;
      const chosen = honour(clause.params, offer, opts);
      if (chosen !== undefined) return chosen;
    }
  }
  throw errors.notAcceptable(acceptedMediaTypes(opts.protobufAllowed));
}

/**
 * Validates the `includeObject` query parameter of a Table request
 * (metav1.TableOptions). Empty or absent means Metadata, as the original
 * treats it. Anything else is 400 with the original's message.
 */
export function parseIncludeObject(value: string | null | undefined): IncludeObject {
  if (value === undefined || value === null || value === '' || value === 'Metadata') return 'Metadata';
  if (value === 'None' || value === 'Object') return value;
  throw errors.badRequest(
    `Unable to convert to Table as requested: includeObject: Invalid value: ${JSON.stringify(value)}: must be 'Metadata', 'Object', 'None', or empty`,
  );
}

/** Request body formats (Content-Type of POST, PUT and PATCH). */
export type BodyFormat =
  /** `defaulted`: no Content-Type was sent; the original reads such bodies as JSON (but refuses them on PATCH). */
  | { kind: 'json'; mediaType: typeof JSON_MEDIA_TYPE; defaulted: boolean }
  | { kind: 'yaml'; mediaType: typeof YAML_MEDIA_TYPE }
  | { kind: 'protobuf'; mediaType: ProtobufMediaType }
  | { kind: 'patch'; patch: PatchType; mediaType: string }
  /** Not a format the server reads: 415 UnsupportedMediaType. */
  | { kind: 'unsupported'; mediaType: string };

/** The original's types.PatchType, by its media type. */
export type PatchType = 'json' | 'merge' | 'strategic-merge' | 'apply';

const PATCH_TYPES: ReadonlyMap<string, PatchType> = new Map([
  ['application/json-patch+json', 'json'],
  ['application/merge-patch+json', 'merge'],
  ['application/strategic-merge-patch+json', 'strategic-merge'],
  ['application/apply-patch+yaml', 'apply'],
]);

// RFC 7231 media type: token "/" token, parameters after ";".
const TOKEN = /^[!#$%&'*+.^_`|~0-9a-z-]+$/;

/**
 * Reads a Content-Type header (parameters such as charset are ignored, as
 * the original ignores them). The caller decides which formats its verb
 * takes: POST/PUT read json/yaml/protobuf, PATCH reads the patch types.
 */
export function contentTypeOf(header: string | undefined): BodyFormat {
  if (header === undefined || header.trim() === '') return { kind: 'json', mediaType: JSON_MEDIA_TYPE, defaulted: true };
  const mediaType = header.split(';')[0]!.trim().toLowerCase();
  const slash = mediaType.indexOf('/');
  if (slash < 0 || !TOKEN.test(mediaType.slice(0, slash)) || !TOKEN.test(mediaType.slice(slash + 1))) {
    return { kind: 'unsupported', mediaType };
  }
  switch (mediaType) {
    case JSON_MEDIA_TYPE:
      return { kind: 'json', mediaType: JSON_MEDIA_TYPE, defaulted: false };
    case YAML_MEDIA_TYPE:
      return { kind: 'yaml', mediaType: YAML_MEDIA_TYPE };
    case ORCH_PROTOBUF_MEDIA_TYPE:
    case KUBERNETES_PROTOBUF_MEDIA_TYPE:
      return { kind: 'protobuf', mediaType };
  }
  const patch = PATCH_TYPES.get(mediaType);
  if (patch !== undefined) return { kind: 'patch', patch, mediaType };
  return { kind: 'unsupported', mediaType };
}
