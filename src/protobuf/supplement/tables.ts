/**
 * The supplement tables as the codec, the model and the typed decoder read
 * them: the transcribed ones (go-presence.ts, opaque-messages.ts) plus the
 * copies the older served versions add (src/openapi/types/versions.ts).
 */
import { BASE_TYPES } from '../../openapi/types/base.ts';
import { aliasTables, type AliasedTables } from '../../openapi/types/versions.ts';
import { GO_PRESENCE as BASE_PRESENCE } from './go-presence.ts';
import { KINDS_WITHOUT_LIST as BASE_KINDS_WITHOUT_LIST, OPAQUE_FIELD_TYPES as BASE_OPAQUE, SUPPLEMENT_MESSAGES as BASE_MESSAGES } from './opaque-messages.ts';
import type { FieldRow } from './rows.ts';

/** The declarations and supplement entries of the aliased versions. */
export const ALIASED: AliasedTables = aliasTables(BASE_TYPES, {
  messages: BASE_MESSAGES,
  opaqueFieldTypes: BASE_OPAQUE,
  presence: BASE_PRESENCE,
  kindsWithoutList: BASE_KINDS_WITHOUT_LIST,
});

export const GO_PRESENCE: Readonly<Record<string, string>> = { ...BASE_PRESENCE, ...ALIASED.presence };
export const SUPPLEMENT_MESSAGES: Readonly<Record<string, readonly FieldRow[]>> = { ...BASE_MESSAGES, ...ALIASED.messages };
export const OPAQUE_FIELD_TYPES: Readonly<Record<string, Readonly<Record<string, string>>>> = { ...BASE_OPAQUE, ...ALIASED.opaqueFieldTypes };
export const KINDS_WITHOUT_LIST: ReadonlySet<string> = new Set([...BASE_KINDS_WITHOUT_LIST, ...ALIASED.kindsWithoutList]);
