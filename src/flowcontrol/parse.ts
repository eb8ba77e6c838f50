/**
 * Reads the store's FlowSchema and PriorityLevelConfiguration objects
 * (v1beta2, the stored version) into the parsed configuration, with the
 * original's defaults (matchingPrecedence 1000, assuredConcurrencyShares 30,
 * queues 64, handSize 8, queueLengthLimit 50). Validation has run at write
 * time; this is still defensive, as a bad object must never stop the
 * controller: what cannot be read is skipped (undefined).
 */
import type { KObject } from '../registry/object.ts';
import type { Distinguisher, FlowSchemaConfig, NonResourceRule, PolicyRule, PriorityLevelConfig, ResourceRule, Subject } from './types.ts';

type Json = Record<string, unknown>;

const obj = (v: unknown): Json | undefined => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Json) : undefined);
const arr = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const strs = (v: unknown): string[] => arr(v).filter((s): s is string => typeof s === 'string');
const str = (v: unknown): string => (typeof v === 'string' ? v : '');
const num = (v: unknown, dflt: number): number => (typeof v === 'number' && Number.isFinite(v) ? v : dflt);

export function parsePriorityLevel(o: KObject): PriorityLevelConfig | undefined {
  const name = str(o.metadata?.name);
  const spec = obj((o as Json)['spec']);
  if (name === '' || spec === undefined) return undefined;
  const uid = str(o.metadata?.uid);
  if (spec['type'] === 'Exempt') return { name, uid, type: 'Exempt', shares: 0, queuing: null };
  if (spec['type'] !== 'Limited') return undefined;
  const limited = obj(spec['limited']) ?? {};
  const shares = Math.max(1, Math.floor(num(limited['assuredConcurrencyShares'], 30)));
  const lr = obj(limited['limitResponse']) ?? {};
  if (lr['type'] !== 'Queue') return { name, uid, type: 'Limited', shares, queuing: null };
  const q = obj(lr['queuing']) ?? {};
  const queues = Math.max(1, Math.floor(num(q['queues'], 64)));
  const handSize = Math.min(queues, Math.max(1, Math.floor(num(q['handSize'], 8))));
  const queueLengthLimit = Math.max(1, Math.floor(num(q['queueLengthLimit'], 50)));
  return { name, uid, type: 'Limited', shares, queuing: { queues, handSize, queueLengthLimit } };
}

function parseSubject(v: unknown): Subject | undefined {
  const s = obj(v);
  if (s === undefined) return undefined;
  switch (s['kind']) {
    case 'User':
      return { kind: 'User', name: str(obj(s['user'])?.['name']) };
    case 'Group':
      return { kind: 'Group', name: str(obj(s['group'])?.['name']) };
    case 'ServiceAccount': {
      const sa = obj(s['serviceAccount']) ?? {};
      return { kind: 'ServiceAccount', namespace: str(sa['namespace']), name: str(sa['name']) };
    }
    default:
      return undefined;
  }
}

function parseResourceRule(v: unknown): ResourceRule | undefined {
  const r = obj(v);
  if (r === undefined) return undefined;
  return { verbs: strs(r['verbs']), apiGroups: strs(r['apiGroups']), resources: strs(r['resources']), clusterScope: r['clusterScope'] === true, namespaces: strs(r['namespaces']) };
}

function parseNonResourceRule(v: unknown): NonResourceRule | undefined {
  const r = obj(v);
  if (r === undefined) return undefined;
  return { verbs: strs(r['verbs']), nonResourceURLs: strs(r['nonResourceURLs']) };
}

const defined = <T>(v: T | undefined): v is T => v !== undefined;

export function parseFlowSchema(o: KObject): FlowSchemaConfig | undefined {
  const name = str(o.metadata?.name);
  const spec = obj((o as Json)['spec']);
  if (name === '' || spec === undefined) return undefined;
  const priorityLevel = str(obj(spec['priorityLevelConfiguration'])?.['name']);
  if (priorityLevel === '') return undefined;
  const dm = str(obj(spec['distinguisherMethod'])?.['type']);
  const distinguisher: Distinguisher = dm === 'ByUser' || dm === 'ByNamespace' ? dm : '';
  const rules: PolicyRule[] = arr(spec['rules']).flatMap((rv) => {
    const r = obj(rv);
    if (r === undefined) return [];
    return [
      {
        subjects: arr(r['subjects']).map(parseSubject).filter(defined),
        resourceRules: arr(r['resourceRules']).map(parseResourceRule).filter(defined),
        nonResourceRules: arr(r['nonResourceRules']).map(parseNonResourceRule).filter(defined),
      },
    ];
  });
  return { name, uid: str(o.metadata?.uid), priorityLevel, matchingPrecedence: Math.floor(num(spec['matchingPrecedence'], 1000)), distinguisher, rules };
}
