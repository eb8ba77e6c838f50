/**
 * RBAC objects (rbac.authorization.<suffix>/v1): rules name verbs and what
 * they apply to; bindings point at a role in the RBAC group and cannot be
 * re-pointed; subjects are users, groups or service accounts
 * (pkg/apis/rbac/validation and the v1 defaults of the original).
 */
import { jsonEqual, type KObject } from '../object.ts';
import { fieldErrors, type FieldError, type Strategy } from '../strategy.ts';
import { goQuote, invalidShown } from '../validation/go-values.ts';
import { validateLabelSelector } from '../validation/label-selector.ts';
import { isDNS1123Subdomain, isValidPathSegmentName } from '../validation/names.ts';
import { arr, ensureObj, obj, str, type JsonObject } from './util.ts';
import { apiGroup, names } from '../../naming/index.ts';
import { pushAll } from '../../api/push-all.ts';

export const RBAC_GROUP = apiGroup('rbac.authorization');

function validateRule(rule: JsonObject, namespaced: boolean, path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (arr(rule['verbs']).length === 0) errs.push(fieldErrors.required(`${path}.verbs`, 'verbs must contain at least one value'));
  const urls = arr(rule['nonResourceURLs']);
  if (urls.length > 0) {
    if (namespaced) errs.push(fieldErrors.invalid(`${path}.nonResourceURLs`, urls, 'namespaced rules cannot apply to non-resource URLs'));
    if (arr(rule['apiGroups']).length > 0 || arr(rule['resources']).length > 0 || arr(rule['resourceNames']).length > 0) {
      errs.push(fieldErrors.invalid(`${path}.nonResourceURLs`, urls, 'rules cannot apply to both regular resources and non-resource URLs'));
    }
    return errs;
  }
  if (arr(rule['apiGroups']).length === 0) errs.push(fieldErrors.required(`${path}.apiGroups`, 'resource rules must supply at least one api group'));
  if (arr(rule['resources']).length === 0) errs.push(fieldErrors.required(`${path}.resources`, 'resource rules must supply at least one resource'));
  return errs;
}

function validateRoleObject(role: KObject, namespaced: boolean): FieldError[] {
  const errs = arr(role['rules']).flatMap((r, i) => validateRule(obj(r) ?? {}, namespaced, `rules[${i}]`));
  // ClusterRoles may aggregate others by label.
  const aggregation = obj(role['aggregationRule']);
  arr(aggregation?.['clusterRoleSelectors']).forEach((sel, i) => pushAll(errs, validateLabelSelector(sel, `aggregationRule.clusterRoleSelectors[${i}]`)));
  return errs;
}

/** SetDefaults_Subject and the roleRef group default. */
function defaultBinding(binding: KObject): void {
  const roleRef = ensureObj(binding, 'roleRef');
  if (!str(roleRef['apiGroup'])) roleRef['apiGroup'] = RBAC_GROUP;
  for (const raw of arr(binding['subjects'])) {
    const s = obj(raw);
    if (!s || str(s['apiGroup'])) continue;
    if (s['kind'] === 'User' || s['kind'] === 'Group') s['apiGroup'] = RBAC_GROUP;
    else if (s['kind'] === 'ServiceAccount') s['apiGroup'] = '';
  }
}

function validateSubject(s: JsonObject, namespaced: boolean, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const name = str(s['name']) ?? '';
  const apiGroup = str(s['apiGroup']) ?? '';
  if (name === '') errs.push(fieldErrors.required(`${path}.name`));
  switch (s['kind']) {
    case 'ServiceAccount':
      if (name !== '') for (const msg of isDNS1123Subdomain(name)) errs.push(fieldErrors.invalid(`${path}.name`, name, msg));
      if (apiGroup !== '') errs.push(fieldErrors.notSupported(`${path}.apiGroup`, apiGroup, ['']));
      if (!namespaced && !str(s['namespace'])) errs.push(fieldErrors.required(`${path}.namespace`));
      break;
    case 'User':
    case 'Group':
      if (apiGroup !== RBAC_GROUP) errs.push(fieldErrors.notSupported(`${path}.apiGroup`, apiGroup, [RBAC_GROUP]));
      break;
    default:
      errs.push(fieldErrors.notSupported(`${path}.kind`, s['kind'] ?? '', ['ServiceAccount', 'User', 'Group']));
  }
  return errs;
}

function validateBinding(binding: KObject, namespaced: boolean): FieldError[] {
  const errs: FieldError[] = [];
  const roleRef = obj(binding['roleRef']) ?? {};
  const apiGroup = str(roleRef['apiGroup']) ?? '';
  if (apiGroup !== RBAC_GROUP) errs.push(fieldErrors.notSupported('roleRef.apiGroup', apiGroup, [RBAC_GROUP]));
  const kinds = namespaced ? ['Role', 'ClusterRole'] : ['ClusterRole'];
  if (!kinds.includes(String(roleRef['kind']))) errs.push(fieldErrors.notSupported('roleRef.kind', roleRef['kind'] ?? '', kinds));
  const name = str(roleRef['name']) ?? '';
  if (name === '') errs.push(fieldErrors.required('roleRef.name'));
  else for (const msg of isValidPathSegmentName(name)) errs.push(fieldErrors.invalid('roleRef.name', name, msg));
  arr(binding['subjects']).forEach((s, i) => pushAll(errs, validateSubject(obj(s) ?? {}, namespaced, `subjects[${i}]`)));
  return errs;
}

/** A binding grants what its role grants: pointing it elsewhere would be a new binding. */
function validateRoleRefUnchanged(binding: KObject, old: KObject): FieldError[] {
  if (jsonEqual(binding['roleRef'], old['roleRef'])) return [];
  const r = obj(binding['roleRef']) ?? {};
  const shown = `rbac.RoleRef{APIGroup:${goQuote(str(r['apiGroup']) ?? '')}, Kind:${goQuote(str(r['kind']) ?? '')}, Name:${goQuote(str(r['name']) ?? '')}}`;
  return [invalidShown('roleRef', shown, 'cannot change roleRef')];
}

/** Roles and ClusterRoles: rules of a namespaced Role cannot name non-resource URLs. */
export const roleStrategy: Strategy = {
  validate(role) {
    return validateRoleObject(role, role.metadata.namespace !== undefined && role.metadata.namespace !== '');
  },
  validateUpdate(role) {
    return validateRoleObject(role, role.metadata.namespace !== undefined && role.metadata.namespace !== '');
  },
};

function bindingStrategy(namespaced: boolean): Strategy {
  return {
    defaults: defaultBinding,
    validate: (b) => validateBinding(b, namespaced),
    validateUpdate: (b, old) => [...validateBinding(b, namespaced), ...validateRoleRefUnchanged(b, old)],
  };
}

export const roleBindingStrategy = bindingStrategy(true);
export const clusterRoleBindingStrategy = bindingStrategy(false);
