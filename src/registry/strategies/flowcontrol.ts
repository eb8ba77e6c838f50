/**
 * FlowSchemas and PriorityLevelConfigurations (flowcontrol.apiserver.<suffix>,
 * v1beta2 and v1beta1): the original's v1beta2 defaults and the validation
 * clients hit (pkg/apis/flowcontrol/validation), with its messages. The
 * status is the controller's: reset on create, kept on update. What the
 * objects make the server do (priority and fairness) is issue 17's.
 */
import type { KObject } from '../object.ts';
import { fieldErrors, type FieldError, type Strategy } from '../strategy.ts';
import { arr, ensureObj, num, obj, setDefault, specOf, statusResetOnCreate, str, type JsonObject } from './util.ts';
import { pushAll } from '../../api/push-all.ts';

const DISTINGUISHER_METHODS = ['ByNamespace', 'ByUser'];
const SUBJECT_KINDS = ['Group', 'ServiceAccount', 'User'];
const PRIORITY_LEVEL_TYPES = ['Exempt', 'Limited'];
const LIMIT_RESPONSE_TYPES = ['Queue', 'Reject'];
const MAX_MATCHING_PRECEDENCE = 10000;
/** The original's cap on the entropy of shuffle sharding: ln(C(queues, handSize)) bits, at most 60. */
const MAX_HASH_BITS = 60;

// ---- FlowSchema ----

function defaultFlowSchema(o: KObject): void {
  const spec = specOf(o);
  if (num(spec['matchingPrecedence']) === undefined || spec['matchingPrecedence'] === 0) spec['matchingPrecedence'] = 1000;
}

function validateSubject(s: JsonObject, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const kind = str(s['kind']) ?? '';
  const members: ReadonlyArray<readonly [field: string, kind: string]> = [['user', 'User'], ['group', 'Group'], ['serviceAccount', 'ServiceAccount']];
  if (!SUBJECT_KINDS.includes(kind)) errs.push(kind === '' ? fieldErrors.required(`${path}.kind`) : fieldErrors.notSupported(`${path}.kind`, kind, SUBJECT_KINDS));
  for (const [field, k] of members) {
    const m = obj(s[field]);
    if (kind === k) {
      if (m === undefined) errs.push(fieldErrors.required(`${path}.${field}`, `${field} is required when subject kind is '${k}'`));
      else if (!str(m['name'])) errs.push(fieldErrors.required(`${path}.${field}.name`, 'name is required'));
      if (m !== undefined && k === 'ServiceAccount' && !str(m['namespace'])) errs.push(fieldErrors.required(`${path}.serviceAccount.namespace`, 'namespace is required'));
    } else if (m !== undefined) {
      errs.push(fieldErrors.forbidden(`${path}.${field}`, `${field} is forbidden when subject kind is not '${k}'`));
    }
  }
  return errs;
}

function validateResourceRule(r: JsonObject, path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (arr(r['verbs']).length === 0) errs.push(fieldErrors.required(`${path}.verbs`, 'verbs must contain at least one value'));
  if (arr(r['apiGroups']).length === 0) errs.push(fieldErrors.required(`${path}.apiGroups`, 'resource rules must supply at least one api group'));
  if (arr(r['resources']).length === 0) errs.push(fieldErrors.required(`${path}.resources`, 'resource rules must supply at least one resource'));
  if (arr(r['namespaces']).length === 0 && r['clusterScope'] !== true) {
    errs.push(fieldErrors.required(`${path}.namespaces`, 'resource rules that are not cluster scoped must supply at least one namespace'));
  }
  return errs;
}

function validateNonResourceRule(r: JsonObject, path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (arr(r['verbs']).length === 0) errs.push(fieldErrors.required(`${path}.verbs`, 'verbs must contain at least one value'));
  if (arr(r['nonResourceURLs']).length === 0) errs.push(fieldErrors.required(`${path}.nonResourceURLs`, 'nonResourceURLs must contain at least one value'));
  return errs;
}

function validateFlowSchema(o: KObject): FieldError[] {
  const errs: FieldError[] = [];
  const spec = specOf(o);
  const precedence = num(spec['matchingPrecedence']) ?? 0;
  if (precedence <= 0 || precedence > MAX_MATCHING_PRECEDENCE) {
    errs.push(fieldErrors.invalid('spec.matchingPrecedence', precedence, `must be between 1 and ${MAX_MATCHING_PRECEDENCE}, inclusive`));
  }
  const method = obj(spec['distinguisherMethod']);
  if (method !== undefined) {
    const t = str(method['type']) ?? '';
    if (!DISTINGUISHER_METHODS.includes(t)) errs.push(fieldErrors.notSupported('spec.distinguisherMethod.type', t, DISTINGUISHER_METHODS));
  }
  const pl = obj(spec['priorityLevelConfiguration']);
  if (!str(pl?.['name'])) errs.push(fieldErrors.required('spec.priorityLevelConfiguration.name', 'must reference a priority level'));
  arr(spec['rules']).forEach((r, i) => {
    const rule = obj(r) ?? {};
    const path = `spec.rules[${i}]`;
    const subjects = arr(rule['subjects']);
    if (subjects.length === 0) errs.push(fieldErrors.required(`${path}.subjects`, 'subjects must contain at least one value'));
    subjects.forEach((s, j) => pushAll(errs, validateSubject(obj(s) ?? {}, `${path}.subjects[${j}]`)));
    const resourceRules = arr(rule['resourceRules']);
    const nonResourceRules = arr(rule['nonResourceRules']);
    if (resourceRules.length === 0 && nonResourceRules.length === 0) {
      errs.push(fieldErrors.required(path, 'at least one of resourceRules and nonResourceRules has to be non-empty'));
    }
    resourceRules.forEach((r2, j) => pushAll(errs, validateResourceRule(obj(r2) ?? {}, `${path}.resourceRules[${j}]`)));
    nonResourceRules.forEach((r2, j) => pushAll(errs, validateNonResourceRule(obj(r2) ?? {}, `${path}.nonResourceRules[${j}]`)));
  });
  return errs;
}

export const flowSchemaStrategy: Strategy = statusResetOnCreate(() => ({}), {
  defaults: (o) => defaultFlowSchema(o),
  validate: (o) => validateFlowSchema(o),
  validateUpdate: (o) => validateFlowSchema(o),
});

// ---- PriorityLevelConfiguration ----

function defaultPriorityLevel(o: KObject): void {
  const spec = specOf(o);
  const limited = obj(spec['limited']);
  if (limited === undefined) return;
  if (num(limited['assuredConcurrencyShares']) === undefined || limited['assuredConcurrencyShares'] === 0) limited['assuredConcurrencyShares'] = 30;
  setDefault(limited, 'lendablePercent', 0);
  const response = ensureObj(limited, 'limitResponse');
  if (response['type'] === 'Queue') {
    const q = ensureObj(response, 'queuing');
    if (!num(q['queues'])) q['queues'] = 64;
    if (!num(q['handSize'])) q['handSize'] = 8;
    if (!num(q['queueLengthLimit'])) q['queueLengthLimit'] = 50;
  }
}

/** ln(n choose k) / ln 2: the bits of entropy shuffle sharding deals with. */
function dealBits(deckSize: number, handSize: number): number {
  let bits = 0;
  for (let i = 0; i < handSize; i++) bits += Math.log2(deckSize - i) - Math.log2(i + 1);
  return bits;
}

function validateQueuing(q: JsonObject, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const queues = num(q['queues']) ?? 0;
  const handSize = num(q['handSize']) ?? 0;
  const limit = num(q['queueLengthLimit']) ?? 0;
  if (queues <= 0) errs.push(fieldErrors.invalid(`${path}.queues`, queues, 'must be positive'));
  if (limit <= 0) errs.push(fieldErrors.invalid(`${path}.queueLengthLimit`, limit, 'must be positive'));
  if (handSize <= 0) errs.push(fieldErrors.invalid(`${path}.handSize`, handSize, 'must be positive'));
  else if (handSize > queues) errs.push(fieldErrors.invalid(`${path}.handSize`, handSize, `should not be greater than queues (${queues})`));
  else if (dealBits(queues, handSize) > MAX_HASH_BITS) {
    errs.push(fieldErrors.invalid(`${path}.handSize`, handSize, `required entropy bits of deckSize ${queues} and handSize ${handSize} should not be greater than ${MAX_HASH_BITS}`));
  }
  return errs;
}

function validatePriorityLevel(o: KObject): FieldError[] {
  const errs: FieldError[] = [];
  const spec = specOf(o);
  const type = str(spec['type']) ?? '';
  const limited = obj(spec['limited']);
  if (type === '') errs.push(fieldErrors.required('spec.type', 'must be one of Exempt, Limited'));
  else if (!PRIORITY_LEVEL_TYPES.includes(type)) errs.push(fieldErrors.notSupported('spec.type', type, PRIORITY_LEVEL_TYPES));
  if (type === 'Exempt' && limited !== undefined) errs.push(fieldErrors.forbidden('spec.limited', 'must be nil if the type is not Limited'));
  if (type === 'Limited') {
    if (limited === undefined) {
      errs.push(fieldErrors.required('spec.limited', 'must not be empty when type is Limited'));
    } else {
      const shares = num(limited['assuredConcurrencyShares']) ?? 0;
      if (shares <= 0) errs.push(fieldErrors.invalid('spec.limited.assuredConcurrencyShares', shares, 'must be positive'));
      const lendable = num(limited['lendablePercent']);
      if (lendable !== undefined && (lendable < 0 || lendable > 100)) errs.push(fieldErrors.invalid('spec.limited.lendablePercent', lendable, 'must be between 0 and 100, inclusive'));
      const borrowing = num(limited['borrowingLimitPercent']);
      if (borrowing !== undefined && borrowing < 0) errs.push(fieldErrors.invalid('spec.limited.borrowingLimitPercent', borrowing, 'if specified, must be a non-negative integer'));
      const response = obj(limited['limitResponse']) ?? {};
      const rtype = str(response['type']) ?? '';
      const queuing = obj(response['queuing']);
      if (!LIMIT_RESPONSE_TYPES.includes(rtype)) {
        errs.push(rtype === '' ? fieldErrors.required('spec.limited.limitResponse.type') : fieldErrors.notSupported('spec.limited.limitResponse.type', rtype, LIMIT_RESPONSE_TYPES));
      } else if (rtype === 'Reject' && queuing !== undefined) {
        errs.push(fieldErrors.forbidden('spec.limited.limitResponse.queuing', 'must be nil if limited.limitResponse.type is not Limited'));
      } else if (rtype === 'Queue') {
        if (queuing === undefined) errs.push(fieldErrors.required('spec.limited.limitResponse.queuing', 'must not be empty if limited.limitResponse.type is Limited'));
        else pushAll(errs, validateQueuing(queuing, 'spec.limited.limitResponse.queuing'));
      }
    }
  }
  return errs;
}

export const priorityLevelConfigurationStrategy: Strategy = statusResetOnCreate(() => ({}), {
  defaults: (o) => defaultPriorityLevel(o),
  validate: (o) => validatePriorityLevel(o),
  validateUpdate: (o) => validatePriorityLevel(o),
});
