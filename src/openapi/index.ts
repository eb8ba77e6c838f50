/**
 * The OpenAPI package's public surface: build the documents once from the
 * registry, then answer requests for them.
 */
export { buildOpenApi, contentHash, type OpenApiDocument, type OpenApiDocuments, type ServedTypes } from './build.ts';
export { openApiResponse, type OpenApiRequest, type OpenApiResponse } from './serve.ts';
export type { ServedSchemas } from './served-schemas.ts';
