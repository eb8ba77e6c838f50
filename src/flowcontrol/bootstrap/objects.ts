/**
 * The priority-and-fairness configuration every server keeps in the store,
 * as the original ships it (k8s.io/apiserver pkg/apis/flowcontrol/bootstrap
 * default.go, v1.25, flowcontrol v1beta2):
 *
 * - mandatory: the `exempt` and `catch-all` PriorityLevelConfigurations and
 *   FlowSchemas. Without them the classifier has no place for a request;
 *   the server overwrites any edit to their spec and recreates them.
 * - suggested: the initial split of traffic into system, node-high,
 *   leader-election, workload-high, workload-low and global-default. An
 *   operator may edit them (after setting the autoupdate-spec annotation to
 *   "false") or delete them.
 *
 * Every function returns fresh plain v1beta2 objects (callers may mutate
 * them): metadata carries the name and the autoupdate-spec annotation
 * "true", nothing a store adds. Names and groups come from the naming table
 * (`kube-system` is the flavor's system namespace, `coordination.<suffix>`);
 * user and group names of the authenticator (`system:masters`, ...) are the
 * same in both flavors. The classifier may use these as the built-in
 * fallback when the store's objects are missing, as the original does.
 */
import type { KObject } from '../../registry/object.ts';
import { apiGroup, names } from '../../naming/index.ts';

/** `flowcontrol.apiserver.<suffix>`, and the stored version the objects are written in. */
export const FLOWCONTROL_GROUP = apiGroup('flowcontrol.apiserver');
export const FLOWCONTROL_VERSION = 'v1beta2';
export const FLOWCONTROL_API_VERSION = `${FLOWCONTROL_GROUP}/${FLOWCONTROL_VERSION}`;

/** The mandatory objects' names (the original's PriorityLevelConfigurationNameExempt, ...). */
export const PRIORITY_LEVEL_EXEMPT = 'exempt';
export const PRIORITY_LEVEL_CATCH_ALL = 'catch-all';
export const FLOW_SCHEMA_EXEMPT = 'exempt';
export const FLOW_SCHEMA_CATCH_ALL = 'catch-all';

/** The FlowSchema condition the config consumer keeps (status.conditions[type=Dangling]). */
export const FLOW_SCHEMA_CONDITION_DANGLING = 'Dangling';

// The original's wildcards (flowcontrol VerbAll, APIGroupAll, ResourceAll, NamespaceEvery, NonResourceAll, NameAll).
const ALL = '*';

const GROUP_MASTERS = 'system:masters';
const GROUP_NODES = 'system:nodes';
const GROUP_AUTHENTICATED = 'system:authenticated';
const GROUP_UNAUTHENTICATED = 'system:unauthenticated';
const GROUP_SERVICE_ACCOUNTS = 'system:serviceaccounts';
const USER_CONTROLLER_MANAGER = 'system:kube-controller-manager';
const USER_SCHEDULER = 'system:kube-scheduler';

type Json = Record<string, unknown>;

function meta(name: string): KObject['metadata'] {
  return { name, annotations: { [names.annotations.apfAutoUpdateSpec]: 'true' } };
}

function priorityLevel(name: string, spec: Json): KObject {
  return { apiVersion: FLOWCONTROL_API_VERSION, kind: 'PriorityLevelConfiguration', metadata: meta(name), spec };
}

function limitedQueue(shares: number, queues: number, handSize: number, queueLengthLimit: number): Json {
  return {
    type: 'Limited',
    limited: { assuredConcurrencyShares: shares, limitResponse: { type: 'Queue', queuing: { queues, handSize, queueLengthLimit } } },
  };
}

interface Rules {
  subjects: Json[];
  resourceRules?: Json[];
  nonResourceRules?: Json[];
}

function flowSchema(name: string, priorityLevel: string, matchingPrecedence: number, distinguisher: 'ByUser' | 'ByNamespace' | '', rules: Rules): KObject {
  const spec: Json = { priorityLevelConfiguration: { name: priorityLevel }, matchingPrecedence };
  if (distinguisher !== '') spec['distinguisherMethod'] = { type: distinguisher };
  const rule: Json = { subjects: rules.subjects };
  if (rules.resourceRules !== undefined) rule['resourceRules'] = rules.resourceRules;
  if (rules.nonResourceRules !== undefined) rule['nonResourceRules'] = rules.nonResourceRules;
  spec['rules'] = [rule];
  return { apiVersion: FLOWCONTROL_API_VERSION, kind: 'FlowSchema', metadata: meta(name), spec };
}

const groups = (...ns: string[]): Json[] => ns.map((name) => ({ kind: 'Group', group: { name } }));
const users = (...ns: string[]): Json[] => ns.map((name) => ({ kind: 'User', user: { name } }));
const systemServiceAccounts = (...ns: string[]): Json[] => ns.map((name) => ({ kind: 'ServiceAccount', serviceAccount: { namespace: names.systemNamespace, name } }));

/** A ResourcePolicyRule as the original serializes it (clusterScope omitted when false). */
function resourceRule(verbs: string[], apiGroups: string[], resources: string[], namespaces: string[], clusterScope: boolean): Json {
  return { verbs, apiGroups, resources, ...(clusterScope ? { clusterScope: true } : {}), namespaces };
}

const nonResourceRule = (verbs: string[], nonResourceURLs: string[]): Json => ({ verbs, nonResourceURLs });

/** Everything, everywhere: the rules of the schemas that match whole users or groups. */
function everything(subjects: Json[]): Rules {
  return { subjects, resourceRules: [resourceRule([ALL], [ALL], [ALL], [ALL], true)], nonResourceRules: [nonResourceRule([ALL], [ALL])] };
}

/** exempt and catch-all, in the original's order (catch-all first). */
export function mandatoryPriorityLevels(): KObject[] {
  return [
    priorityLevel(PRIORITY_LEVEL_CATCH_ALL, { type: 'Limited', limited: { assuredConcurrencyShares: 5, limitResponse: { type: 'Reject' } } }),
    priorityLevel(PRIORITY_LEVEL_EXEMPT, { type: 'Exempt' }),
  ];
}

/** exempt (system:masters, precedence 1) and catch-all (everyone, precedence 10000). */
export function mandatoryFlowSchemas(): KObject[] {
  return [
    flowSchema(FLOW_SCHEMA_EXEMPT, PRIORITY_LEVEL_EXEMPT, 1, '', everything(groups(GROUP_MASTERS))),
    flowSchema(FLOW_SCHEMA_CATCH_ALL, PRIORITY_LEVEL_CATCH_ALL, 10000, 'ByUser', everything(groups(GROUP_UNAUTHENTICATED, GROUP_AUTHENTICATED))),
  ];
}

/** system, node-high, leader-election, workload-high, workload-low, global-default. */
export function suggestedPriorityLevels(): KObject[] {
  return [
    priorityLevel('system', limitedQueue(30, 64, 6, 50)),
    priorityLevel('node-high', limitedQueue(40, 64, 6, 50)),
    priorityLevel('leader-election', limitedQueue(10, 16, 4, 50)),
    priorityLevel('workload-high', limitedQueue(40, 128, 6, 50)),
    priorityLevel('workload-low', limitedQueue(100, 128, 6, 50)),
    priorityLevel('global-default', limitedQueue(20, 128, 6, 50)),
  ];
}

/** The suggested FlowSchemas, in the original's list order. */
export function suggestedFlowSchemas(): KObject[] {
  const coordination = apiGroup('coordination');
  const electionVerbs = ['get', 'create', 'update'];
  return [
    flowSchema('system-nodes', 'system', 500, 'ByUser', everything(groups(GROUP_NODES))),
    flowSchema('system-node-high', 'node-high', 400, 'ByUser', {
      subjects: groups(GROUP_NODES),
      resourceRules: [resourceRule([ALL], [''], ['nodes', 'nodes/status'], [ALL], true), resourceRule([ALL], [coordination], ['leases'], [ALL], false)],
    }),
    flowSchema('probes', PRIORITY_LEVEL_EXEMPT, 2, '', {
      subjects: groups(GROUP_UNAUTHENTICATED, GROUP_AUTHENTICATED),
      nonResourceRules: [nonResourceRule(['get'], ['/healthz', '/readyz', '/livez'])],
    }),
    flowSchema('system-leader-election', 'leader-election', 100, 'ByUser', {
      subjects: [...users(USER_CONTROLLER_MANAGER, USER_SCHEDULER), ...systemServiceAccounts(ALL)],
      resourceRules: [resourceRule(electionVerbs, [coordination], ['leases'], [ALL], false)],
    }),
    flowSchema('workload-leader-election', 'leader-election', 200, 'ByUser', {
      subjects: systemServiceAccounts(ALL),
      resourceRules: [resourceRule(electionVerbs, [''], ['endpoints', 'configmaps'], [ALL], false), resourceRule(electionVerbs, [coordination], ['leases'], [ALL], false)],
    }),
    // Before workload-leader-election (150 < 200): the endpoints controller's writes are work, not elections.
    flowSchema('endpoint-controller', 'workload-high', 150, 'ByUser', {
      subjects: [...users(USER_CONTROLLER_MANAGER), ...systemServiceAccounts('endpoint-controller', 'endpointslicemirroring-controller')],
      resourceRules: [resourceRule(electionVerbs, [''], ['endpoints'], [ALL], false)],
    }),
    flowSchema('kube-controller-manager', 'workload-high', 800, 'ByNamespace', everything(users(USER_CONTROLLER_MANAGER))),
    flowSchema('kube-scheduler', 'workload-high', 800, 'ByNamespace', everything(users(USER_SCHEDULER))),
    flowSchema('kube-system-service-accounts', 'workload-high', 900, 'ByNamespace', everything(systemServiceAccounts(ALL))),
    flowSchema('service-accounts', 'workload-low', 9000, 'ByUser', everything(groups(GROUP_SERVICE_ACCOUNTS))),
    flowSchema('global-default', 'global-default', 9900, 'ByUser', everything(groups(GROUP_UNAUTHENTICATED, GROUP_AUTHENTICATED))),
  ];
}

/** Names of every bootstrap object of a kind: what the ensurer keeps, and the only ones it may remove others around. */
export function bootstrapPriorityLevelNames(): ReadonlySet<string> {
  return new Set([...mandatoryPriorityLevels(), ...suggestedPriorityLevels()].map((o) => o.metadata.name!));
}

export function bootstrapFlowSchemaNames(): ReadonlySet<string> {
  return new Set([...mandatoryFlowSchemas(), ...suggestedFlowSchemas()].map((o) => o.metadata.name!));
}
