/**
 * Every declared type, in one list: the source the documents, server-side
 * apply, Protobuf and the typed decoder are built from. The types declared
 * field by field (base.ts) and the older versions declared as copies of them
 * (versions.ts).
 */
import type { StructDecl } from '../schema-dsl.ts';
import { BASE_TYPES } from './base.ts';
import { ALIASED } from '../../protobuf/supplement/tables.ts';

export const ALL_TYPES: readonly StructDecl[] = [...BASE_TYPES, ...ALIASED.decls];
