/**
 * OpenAPI documents with custom resources described by their definitions'
 * schemas, so `kubectl explain` and client-side tools see their fields.
 *
 * buildOpenApi already renders every served type, custom ones with a
 * placeholder schema (apiVersion, kind, metadata; the rest kept as sent) and
 * their paths; here the placeholders are replaced by each version's schema
 * (apiVersion, kind and metadata kept from the placeholder, so metadata
 * refers to ObjectMeta as for built-in kinds), in v2 (without the v3-only
 * keywords, as the original's v2 conversion drops them) and in the group's
 * v3 document, whose hash and ETag are computed again. Runs only when the
 * served definitions change.
 */
import { buildOpenApi, contentHash, type OpenApiDocument, type OpenApiDocuments } from '../openapi/index.ts';
import type { ResourceRegistry } from '../registry/registry.ts';
import type { ResourceType } from '../registry/resource-type.ts';
import { names } from '../naming/index.ts';
import { customResourceOf } from './hooks.ts';

type Json = Record<string, unknown>;
const encoder = new TextEncoder();
const GVK_KEY = 'x-kubernetes-group-version-kind';
const V2_DROPPED = ['nullable', 'anyOf', 'oneOf', 'allOf', 'not', 'x-kubernetes-validations'];

function isObj(v: unknown): v is Json {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function gvkOfDefinition(d: Json): string | undefined {
  const g = d[GVK_KEY] ?? d[`${names.openApiExtensionPrefix}group-version-kind`];
  const first = Array.isArray(g) ? g[0] : g;
  if (!isObj(first)) return undefined;
  return `${String(first['group'] ?? '')}/${String(first['version'] ?? '')}/${String(first['kind'] ?? '')}`;
}

/** A copy of `s` for the document: v2 without v3-only keywords; the flavor's markers also in the original's spelling. */
function forDocument(s: unknown, v2: boolean): unknown {
  if (Array.isArray(s)) return s.map((x) => forDocument(x, v2));
  if (!isObj(s)) return s;
  const out: Json = {};
  for (const [k, v] of Object.entries(s)) {
    if (v2 && V2_DROPPED.includes(k)) continue;
    const value = k === 'properties' && isObj(v) ? Object.fromEntries(Object.entries(v).map(([pk, pv]) => [pk, forDocument(pv, v2)])) : k === 'default' || k === 'enum' || k === 'example' ? v : forDocument(v, v2);
    out[k] = value;
    if (names.openApiExtensionPrefix !== 'x-kubernetes-' && k.startsWith(names.openApiExtensionPrefix)) out[`x-kubernetes-${k.slice(names.openApiExtensionPrefix.length)}`] = value;
  }
  return out;
}

/** The placeholder `d` with the version's schema in place of its free-form body. */
function described(d: Json, schema: Json, v2: boolean): Json {
  const s = forDocument(schema, v2) as Json;
  const placeholder = isObj(d['properties']) ? d['properties'] : {};
  const props = isObj(s['properties']) ? s['properties'] : {};
  const out: Json = { ...s, type: 'object', properties: { ...props, apiVersion: placeholder['apiVersion'], kind: placeholder['kind'], metadata: placeholder['metadata'] } };
  for (const [k, v] of Object.entries(d)) if (k.startsWith('x-') && k.endsWith('group-version-kind')) out[k] = v;
  delete out[`${names.openApiExtensionPrefix}preserve-unknown-fields`];
  delete out['x-kubernetes-preserve-unknown-fields'];
  if (s[`${names.openApiExtensionPrefix}preserve-unknown-fields`] === true) out['x-kubernetes-preserve-unknown-fields'] = true;
  return out;
}

/** The served custom types by `group/version/kind`, with their schemas. */
function customSchemas(types: readonly ResourceType[]): Map<string, Json> {
  const out = new Map<string, Json>();
  for (const rt of types) {
    const schema = customResourceOf(rt)?.schema;
    if (schema !== undefined) out.set(`${rt.group}/${rt.version}/${rt.kind}`, schema);
  }
  return out;
}

function patchDefinitions(defs: unknown, custom: Map<string, Json>, v2: boolean): boolean {
  if (!isObj(defs)) return false;
  let changed = false;
  for (const [name, d] of Object.entries(defs)) {
    if (!isObj(d)) continue;
    const key = gvkOfDefinition(d);
    const schema = key === undefined ? undefined : custom.get(key);
    if (schema === undefined) continue;
    defs[name] = described(d, schema, v2);
    changed = true;
  }
  return changed;
}

/** buildOpenApi of the registry, custom resources described by their schemas. */
export function buildOpenApiWithCustomResources(registry: ResourceRegistry): OpenApiDocuments {
  const docs = buildOpenApi(registry);
  const custom = customSchemas(registry.types);
  if (custom.size === 0) return docs;
  const groups = new Set([...custom.keys()].map((k) => k.split('/').slice(0, 2).join('/')));

  const v2Doc = JSON.parse(Buffer.from(docs.v2).toString('utf8')) as Json;
  patchDefinitions(v2Doc['definitions'], custom, true);
  const v2 = encoder.encode(JSON.stringify(v2Doc));

  const v3ByPath = new Map(docs.v3ByPath);
  const v3Hashes = new Map(docs.v3Hashes);
  const v3Etags = new Map(docs.etags.v3);
  for (const gv of groups) {
    const key = `apis/${gv}`;
    const bytes = v3ByPath.get(key);
    if (bytes === undefined) continue;
    const doc = JSON.parse(Buffer.from(bytes).toString('utf8')) as Json;
    const components = isObj(doc['components']) ? doc['components'] : {};
    if (!patchDefinitions(components['schemas'], custom, false)) continue;
    const out = encoder.encode(JSON.stringify(doc));
    const hash = contentHash(out);
    v3ByPath.set(key, out);
    v3Hashes.set(key, hash);
    v3Etags.set(key, `"${hash}"`);
  }
  const index = JSON.parse(Buffer.from(docs.v3Index).toString('utf8')) as Json;
  const paths = isObj(index['paths']) ? index['paths'] : {};
  for (const [key, hash] of v3Hashes) {
    const entry = paths[key];
    if (isObj(entry) && typeof entry['serverRelativeURL'] === 'string') entry['serverRelativeURL'] = `/openapi/v3/${key}?hash=${hash}`;
  }
  const v3Index = encoder.encode(JSON.stringify(index));
  const etags = { v2: `"${contentHash(v2)}"`, v3Index: `"${contentHash(v3Index)}"`, v3: v3Etags };
  const JSON_TYPE = 'application/json';
  const byPath = new Map<string, OpenApiDocument>([
    ['/openapi/v2', { body: v2, contentType: JSON_TYPE, etag: etags.v2 }],
    ['/openapi/v3', { body: v3Index, contentType: JSON_TYPE, etag: etags.v3Index }],
  ]);
  for (const [gv, body] of v3ByPath) byPath.set(`/openapi/v3/${gv}`, { body, contentType: JSON_TYPE, etag: v3Etags.get(gv)! });
  return {
    v2,
    v3Index,
    v3ByPath,
    v3Hashes,
    etags,
    schemas: docs.schemas,
    document: (path) => byPath.get(path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path),
  };
}
