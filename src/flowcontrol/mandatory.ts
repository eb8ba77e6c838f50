/**
 * The two mandatory priority levels and flow schemas (the original's
 * bootstrap.MandatoryPriorityLevelConfigurationExempt / CatchAll and
 * MandatoryFlowSchemaExempt / CatchAll, v1.25), already parsed. The
 * controller "imagines" them while the store has no object of the name, as
 * the original does (apf_controller.go: imaginePL, and the exempt and
 * catch-all FlowSchemas put first and last of the sequence), so a fresh
 * server classifies from its first request.
 *
 * Parsed once from the bootstrap set the ensurer writes
 * (src/flowcontrol/bootstrap/objects.ts), so the two never disagree.
 */
import { mandatoryFlowSchemas, mandatoryPriorityLevels } from './bootstrap/objects.ts';
import { FLOW_SCHEMA_CATCH_ALL, FLOW_SCHEMA_EXEMPT, PRIORITY_LEVEL_CATCH_ALL, PRIORITY_LEVEL_EXEMPT } from './bootstrap/objects.ts';
import { parseFlowSchema, parsePriorityLevel } from './parse.ts';
import type { FlowSchemaConfig, PriorityLevelConfig } from './types.ts';

export { FLOW_SCHEMA_CATCH_ALL, FLOW_SCHEMA_EXEMPT, PRIORITY_LEVEL_CATCH_ALL, PRIORITY_LEVEL_EXEMPT };

function named<T extends { name: string }>(all: readonly (T | undefined)[], name: string): T {
  const found = all.find((x) => x?.name === name);
  if (found === undefined) throw new Error(`the bootstrap set has no mandatory ${name}`);
  return found;
}

const levels = mandatoryPriorityLevels().map(parsePriorityLevel);
const schemas = mandatoryFlowSchemas().map(parseFlowSchema);

export const MANDATORY_PL_EXEMPT: PriorityLevelConfig = named(levels, PRIORITY_LEVEL_EXEMPT);
/** v1.25: Limited, 5 shares, Reject. */
export const MANDATORY_PL_CATCH_ALL: PriorityLevelConfig = named(levels, PRIORITY_LEVEL_CATCH_ALL);
/** Precedence 1: system:masters, everything, on the exempt level. */
export const MANDATORY_FS_EXEMPT: FlowSchemaConfig = named(schemas, FLOW_SCHEMA_EXEMPT);
/** Precedence 10000: every authenticated and unauthenticated user, by user, on catch-all. */
export const MANDATORY_FS_CATCH_ALL: FlowSchemaConfig = named(schemas, FLOW_SCHEMA_CATCH_ALL);
