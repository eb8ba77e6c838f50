/**
 * Typed decoding of every write against its kind's schema: see decoder.ts
 * (the compiled checkers), body.ts (request bodies), patched.ts (patch and
 * apply results), field-validation.ts (`?fieldValidation`), depth.ts
 * (nesting limits) and duplicates.ts (repeated keys).
 */
export { TypedDecoders, TypedDecodeError, type KindDecoder } from './decoder.ts';
export { decodeJsonBody, decodeObjectBody, type DecodeTarget } from './body.ts';
export { decodePatchedObject } from './patched.ts';
export { parseFieldValidation, type FieldValidation, type WriteOptionsKind } from './field-validation.ts';
export { jsonDepthExceeded, jsonDepthMessage, MAX_NESTING_DEPTH, ORIGINAL_MAX_DEPTH, valueDepthExceeded, yamlFlowDepthExceeded } from './depth.ts';
export { duplicateFields, scanJson, type JsonScan } from './duplicates.ts';
