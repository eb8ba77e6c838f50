/**
 * buildOpenApi: renders every OpenAPI document once, at start (the served
 * types do not change while running), and keeps them as bytes with a content
 * hash. The hash is the original's: upper-case hex SHA-512 of the bytes; it
 * is the ETag and the `hash` query parameter of the v3 index URLs, so
 * clients can cache a document for as long as its hash is listed.
 */
import { createHash } from 'node:crypto';
import type { ResourceType } from '../registry/resource-type.ts';
import { planOperations } from './operations.ts';
import { SchemaRenderer } from './render-schema.ts';
import { servedSchemas, type ServedSchemas } from './served-schemas.ts';
import { swaggerDocument } from './v2.ts';
import { groupVersionDocument, indexDocument } from './v3.ts';

export interface OpenApiDocuments {
  /** `/openapi/v2` (JSON). */
  readonly v2: Uint8Array;
  /** `/openapi/v3`. */
  readonly v3Index: Uint8Array;
  /** Group/version documents keyed `api/v1`, `apis/apps/v1` (served under `/openapi/v3/<key>`). */
  readonly v3ByPath: ReadonlyMap<string, Uint8Array>;
  /** Content hashes of the v3 group/version documents, by the same keys. */
  readonly v3Hashes: ReadonlyMap<string, string>;
  /** Quoted ETags: `v2`, `v3Index`, and one per v3 key. */
  readonly etags: { readonly v2: string; readonly v3Index: string; readonly v3: ReadonlyMap<string, string> };
  /** The schemas behind the documents (for validation and field ownership). */
  readonly schemas: ServedSchemas;
  /**
   * The document at a path (`/openapi/v2`, `/openapi/v3`, `/openapi/v3/api/v1`),
   * ignoring query and headers; `openApiResponse` in serve.ts also applies the
   * hash, Accept and caching rules.
   */
  document(path: string): OpenApiDocument | undefined;
}

export interface OpenApiDocument {
  readonly body: Uint8Array;
  readonly contentType: string;
  readonly etag: string;
}

/** What the builder needs from the registry: the served types. */
export interface ServedTypes {
  readonly types: readonly ResourceType[];
}

const encoder = new TextEncoder();

export function contentHash(bytes: Uint8Array): string {
  return createHash('sha512').update(bytes).digest('hex').toUpperCase();
}

export function buildOpenApi(registry: ServedTypes): OpenApiDocuments {
  const schemas = servedSchemas(registry.types);
  const plans = planOperations(registry.types, schemas);

  const v3Renderer = new SchemaRenderer(schemas.set, 'v3');
  const v3ByPath = new Map<string, Uint8Array>();
  const v3Hashes = new Map<string, string>();
  const v3Etags = new Map<string, string>();
  for (const [gv, paths] of [...plans].sort(([a], [b]) => (a < b ? -1 : 1))) {
    const bytes = encoder.encode(JSON.stringify(groupVersionDocument(paths, v3Renderer)));
    const hash = contentHash(bytes);
    v3ByPath.set(gv, bytes);
    v3Hashes.set(gv, hash);
    v3Etags.set(gv, `"${hash}"`);
  }
  const v3Index = encoder.encode(JSON.stringify(indexDocument(v3Hashes)));
  const v2 = encoder.encode(JSON.stringify(swaggerDocument(plans, new SchemaRenderer(schemas.set, 'v2'))));
  const etags = { v2: `"${contentHash(v2)}"`, v3Index: `"${contentHash(v3Index)}"`, v3: v3Etags };
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
    schemas,
    document: (path) => byPath.get(path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path),
  };
}

const JSON_TYPE = 'application/json';
