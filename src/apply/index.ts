/**
 * Server-side apply's public surface: the FieldManager facade for the store
 * and the PATCH handler, and the few helpers around it. Everything else in
 * this folder is the machinery (value, schema, field paths, typed walkers,
 * merge) and may change.
 */
export { FieldManager, managerFromUserAgent, DEFAULT_MAX_UPDATE_MANAGERS, type ApplyRequest, type UpdateRequest, type FieldManagerOptions } from './field-manager.ts';
export { keepTimesIfUnchanged } from './unchanged.ts';
export { decodeApplyBody } from './apply-body.ts';
