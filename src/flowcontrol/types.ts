/**
 * The parsed priority-and-fairness configuration (the original's
 * flowcontrol.FlowSchema and PriorityLevelConfiguration, v1beta2), as the
 * controller digests it from the store's objects: only what classification
 * and queueing read, with defaults applied.
 */

export interface UserSubject {
  readonly kind: 'User';
  readonly name: string;
}
export interface GroupSubject {
  readonly kind: 'Group';
  readonly name: string;
}
export interface ServiceAccountSubject {
  readonly kind: 'ServiceAccount';
  readonly namespace: string;
  readonly name: string;
}
export type Subject = UserSubject | GroupSubject | ServiceAccountSubject;

export interface ResourceRule {
  readonly verbs: readonly string[];
  readonly apiGroups: readonly string[];
  readonly resources: readonly string[];
  readonly clusterScope: boolean;
  readonly namespaces: readonly string[];
}

export interface NonResourceRule {
  readonly verbs: readonly string[];
  readonly nonResourceURLs: readonly string[];
}

export interface PolicyRule {
  readonly subjects: readonly Subject[];
  readonly resourceRules: readonly ResourceRule[];
  readonly nonResourceRules: readonly NonResourceRule[];
}

export type Distinguisher = 'ByUser' | 'ByNamespace' | '';

export interface FlowSchemaConfig {
  readonly name: string;
  readonly uid: string;
  readonly priorityLevel: string;
  readonly matchingPrecedence: number;
  readonly distinguisher: Distinguisher;
  readonly rules: readonly PolicyRule[];
}

export interface QueuingConfig {
  readonly queues: number;
  readonly handSize: number;
  readonly queueLengthLimit: number;
}

export interface PriorityLevelConfig {
  readonly name: string;
  readonly uid: string;
  readonly type: 'Exempt' | 'Limited';
  /** Limited only: assuredConcurrencyShares (default 30). */
  readonly shares: number;
  /** Limited only: null is LimitResponse Reject, otherwise Queue with these settings. */
  readonly queuing: QueuingConfig | null;
}

/** The original's wildcards (VerbAll, APIGroupAll, ResourceAll, NamespaceEvery, NameAll, NonResourceAll). */
export const ALL = '*';
