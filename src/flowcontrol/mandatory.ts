/**
 * The two mandatory priority levels and flow schemas (the original's
 * bootstrap.MandatoryPriorityLevelConfigurationExempt / CatchAll and
 * MandatoryFlowSchemaExempt / CatchAll, v1.25), already parsed. The
 * controller "imagines" them while the store has no object of the name, as
 * the original does (apf_controller.go: imaginePL, and the exempt and
 * catch-all FlowSchemas put first and last of the sequence), so a fresh
 * server classifies from its first request.
 *
 * A private copy: the store's definitions and their ensurer live in
 * src/flowcontrol/bootstrap/ (mandatoryPriorityLevels, mandatoryFlowSchemas);
 * these must say the same.
 */
import { GROUP_AUTHENTICATED, GROUP_MASTERS, GROUP_UNAUTHENTICATED } from '../authn/types.ts';
import { ALL, type FlowSchemaConfig, type PriorityLevelConfig } from './types.ts';

export const PRIORITY_LEVEL_EXEMPT = 'exempt';
export const PRIORITY_LEVEL_CATCH_ALL = 'catch-all';
export const FLOW_SCHEMA_EXEMPT = 'exempt';
export const FLOW_SCHEMA_CATCH_ALL = 'catch-all';

export const MANDATORY_PL_EXEMPT: PriorityLevelConfig = { name: PRIORITY_LEVEL_EXEMPT, uid: '', type: 'Exempt', shares: 0, queuing: null };
/** v1.25: Limited, 5 shares, Reject. */
export const MANDATORY_PL_CATCH_ALL: PriorityLevelConfig = { name: PRIORITY_LEVEL_CATCH_ALL, uid: '', type: 'Limited', shares: 5, queuing: null };

const everything = {
  resourceRules: [{ verbs: [ALL], apiGroups: [ALL], resources: [ALL], clusterScope: true, namespaces: [ALL] }],
  nonResourceRules: [{ verbs: [ALL], nonResourceURLs: [ALL] }],
};

/** Precedence 1: system:masters, everything, on the exempt level. */
export const MANDATORY_FS_EXEMPT: FlowSchemaConfig = {
  name: FLOW_SCHEMA_EXEMPT,
  uid: '',
  priorityLevel: PRIORITY_LEVEL_EXEMPT,
  matchingPrecedence: 1,
  distinguisher: '',
  rules: [{ subjects: [{ kind: 'Group', name: GROUP_MASTERS }], ...everything }],
};

/** Precedence 10000: every authenticated and unauthenticated user, by user, on catch-all. */
export const MANDATORY_FS_CATCH_ALL: FlowSchemaConfig = {
  name: FLOW_SCHEMA_CATCH_ALL,
  uid: '',
  priorityLevel: PRIORITY_LEVEL_CATCH_ALL,
  matchingPrecedence: 10000,
  distinguisher: 'ByUser',
  rules: [{ subjects: [{ kind: 'Group', name: GROUP_UNAUTHENTICATED }, { kind: 'Group', name: GROUP_AUTHENTICATED }], ...everything }],
};
