/**
 * Mutating and validating webhook configurations (spec 2.10, v1): the v1
 * defaults (failurePolicy Fail, matchPolicy Equivalent, timeoutSeconds 10,
 * empty selectors, rule scope `*`, service port 443, reinvocationPolicy
 * Never) and the validation clients commonly hit: unique qualified names,
 * rules, sideEffects and admissionReviewVersions required, timeouts in
 * 1..30, exactly one of url or service.
 */
import type { KObject } from '../object.ts';
import { fieldErrors, type FieldError, type Strategy } from '../strategy.ts';
import { validateLabelSelector } from '../validation/label-selector.ts';
import { isDNS1123Subdomain, isValidPortNum } from '../validation/names.ts';
import { arr, num, obj, setDefault, str, type JsonObject } from './util.ts';
import { pushAll } from '../../api/push-all.ts';

const OPERATIONS = ['*', 'CONNECT', 'CREATE', 'DELETE', 'UPDATE'];
const SCOPES = ['*', 'Cluster', 'Namespaced'];
const FAILURE_POLICIES = ['Fail', 'Ignore'];
const MATCH_POLICIES = ['Equivalent', 'Exact'];
const SIDE_EFFECTS = ['None', 'NoneOnDryRun'];
const REVIEW_VERSIONS = ['v1', 'v1beta1'];
const REINVOCATION_POLICIES = ['IfNeeded', 'Never'];
const URL_FORM = '; desired format: https://host[/path]';

function defaultWebhook(hook: JsonObject, mutating: boolean): void {
  setDefault(hook, 'failurePolicy', 'Fail');
  setDefault(hook, 'matchPolicy', 'Equivalent');
  if (!obj(hook['namespaceSelector'])) hook['namespaceSelector'] = {};
  if (!obj(hook['objectSelector'])) hook['objectSelector'] = {};
  setDefault(hook, 'timeoutSeconds', 10);
  if (mutating) setDefault(hook, 'reinvocationPolicy', 'Never');
  for (const r of arr(hook['rules'])) {
    const rule = obj(r);
    if (rule) setDefault(rule, 'scope', '*');
  }
  const service = obj(obj(hook['clientConfig'])?.['service']);
  if (service) setDefault(service, 'port', 443);
}

function defaultConfiguration(config: KObject, mutating: boolean): void {
  for (const h of arr(config['webhooks'])) {
    const hook = obj(h);
    if (hook) defaultWebhook(hook, mutating);
  }
}

/** IsFullyQualifiedName: a DNS subdomain with at least three segments. */
function validateWebhookName(name: string, path: string): FieldError[] {
  if (name === '') return [fieldErrors.required(path)];
  const msgs = isDNS1123Subdomain(name);
  if (msgs.length > 0) return [fieldErrors.invalid(path, name, msgs.join(','))];
  if (name.split('.').length < 3) return [fieldErrors.invalid(path, name, 'should be a domain with at least three segments separated by dots')];
  return [];
}

function validateRule(rule: JsonObject, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const ops = arr(rule['operations']).map(String);
  if (ops.length === 0) errs.push(fieldErrors.required(`${path}.operations`));
  if (ops.length > 1 && ops.includes('*')) errs.push(fieldErrors.invalid(`${path}.operations`, ops, "if '*' is present, must not specify other operations"));
  ops.forEach((op, i) => {
    if (!OPERATIONS.includes(op)) errs.push(fieldErrors.notSupported(`${path}.operations[${i}]`, op, OPERATIONS));
  });
  const groups = arr(rule['apiGroups']).map(String);
  if (groups.length === 0) errs.push(fieldErrors.required(`${path}.apiGroups`));
  if (groups.length > 1 && groups.includes('*')) errs.push(fieldErrors.invalid(`${path}.apiGroups`, groups, "if '*' is present, must not specify other API groups"));
  const versions = arr(rule['apiVersions']).map(String);
  if (versions.length === 0) errs.push(fieldErrors.required(`${path}.apiVersions`));
  if (versions.length > 1 && versions.includes('*')) errs.push(fieldErrors.invalid(`${path}.apiVersions`, versions, "if '*' is present, must not specify other API versions"));
  versions.forEach((v, i) => {
    if (v === '') errs.push(fieldErrors.required(`${path}.apiVersions[${i}]`));
  });
  if (arr(rule['resources']).length === 0) errs.push(fieldErrors.required(`${path}.resources`));
  const scope = rule['scope'];
  if (scope !== undefined && scope !== null && !SCOPES.includes(String(scope))) errs.push(fieldErrors.notSupported(`${path}.scope`, scope, SCOPES));
  return errs;
}

function validateClientConfig(cc: JsonObject | undefined, path: string): FieldError[] {
  const url = str(cc?.['url']);
  const service = obj(cc?.['service']);
  if ((url === undefined) === (service === undefined)) return [fieldErrors.required(path, 'exactly one of url or service is required')];
  const errs: FieldError[] = [];
  if (url !== undefined) {
    const p = `${path}.url`;
    let u: URL;
    try {
      u = new URL(url);
    } catch (e) {
      return [fieldErrors.required(p, `url must be a valid URL: ${(e as Error).message}${URL_FORM}`)];
    }
    const scheme = u.protocol.replace(/:$/, '');
    if (scheme !== 'https') errs.push(fieldErrors.invalid(p, scheme, `'https' is the only allowed URL scheme${URL_FORM}`));
    if (u.host === '') errs.push(fieldErrors.invalid(p, u.host, `host must be specified${URL_FORM}`));
    if (u.username !== '' || u.password !== '') {
      errs.push(fieldErrors.invalid(p, u.password ? `${u.username}:${u.password}` : u.username, 'user information is not permitted in the URL'));
    }
    if (u.hash !== '') errs.push(fieldErrors.invalid(p, u.hash.slice(1), 'fragments are not permitted in the URL'));
    if (u.search !== '') errs.push(fieldErrors.invalid(p, u.search.slice(1), 'query parameters are not permitted in the URL'));
    return errs;
  }
  const s = service!;
  const p = `${path}.service`;
  if (!str(s['name'])) errs.push(fieldErrors.required(`${p}.name`, 'service name is required'));
  if (!str(s['namespace'])) errs.push(fieldErrors.required(`${p}.namespace`, 'service namespace is required'));
  const port = num(s['port']) ?? 443;
  const portErrs = isValidPortNum(port);
  if (portErrs.length > 0) errs.push(fieldErrors.invalid(`${p}.port`, port, `port is not valid: ${portErrs.join(', ')}`));
  const svcPath = str(s['path']);
  if (svcPath !== undefined && svcPath !== '' && svcPath !== '/') {
    if (svcPath === '//') errs.push(fieldErrors.invalid(`${p}.path`, svcPath, 'segment[0] may not be empty'));
    else if (!svcPath.startsWith('/')) errs.push(fieldErrors.invalid(`${p}.path`, svcPath, "must start with a '/'"));
  }
  return errs;
}

function validateWebhook(hook: JsonObject, mutating: boolean, path: string): FieldError[] {
  const errs = validateWebhookName(str(hook['name']) ?? '', `${path}.name`);
  arr(hook['rules']).forEach((r, i) => pushAll(errs, validateRule(obj(r) ?? {}, `${path}.rules[${i}]`)));
  const enumOf = (field: string, allowed: string[]): void => {
    const v = hook[field];
    if (v !== undefined && v !== null && !allowed.includes(String(v))) errs.push(fieldErrors.notSupported(`${path}.${field}`, v, allowed));
  };
  enumOf('failurePolicy', FAILURE_POLICIES);
  enumOf('matchPolicy', MATCH_POLICIES);
  if (mutating) enumOf('reinvocationPolicy', REINVOCATION_POLICIES);
  const sideEffects = hook['sideEffects'];
  if (sideEffects === undefined || sideEffects === null || sideEffects === '') {
    errs.push(fieldErrors.required(`${path}.sideEffects`, `must specify one of ${SIDE_EFFECTS.join(', ')}`));
  } else if (!SIDE_EFFECTS.includes(String(sideEffects))) {
    errs.push(fieldErrors.notSupported(`${path}.sideEffects`, sideEffects, SIDE_EFFECTS));
  }
  const reviewVersions = arr(hook['admissionReviewVersions']).map(String);
  if (reviewVersions.length === 0) {
    errs.push(fieldErrors.required(`${path}.admissionReviewVersions`, `must specify one of ${REVIEW_VERSIONS.join(', ')}`));
  } else if (!reviewVersions.some((v) => REVIEW_VERSIONS.includes(v))) {
    errs.push(fieldErrors.invalid(`${path}.admissionReviewVersions`, reviewVersions, `must include at least one of ${REVIEW_VERSIONS.join(', ')}`));
  }
  const timeout = num(hook['timeoutSeconds']);
  if (timeout !== undefined && (timeout < 1 || timeout > 30)) {
    errs.push(fieldErrors.invalid(`${path}.timeoutSeconds`, timeout, 'the timeout value must be between 1 and 30 seconds'));
  }
  pushAll(errs, validateLabelSelector(hook['namespaceSelector'], `${path}.namespaceSelector`));
  pushAll(errs, validateLabelSelector(hook['objectSelector'], `${path}.objectSelector`));
  pushAll(errs, validateClientConfig(obj(hook['clientConfig']), `${path}.clientConfig`));
  return errs;
}

function validateConfiguration(config: KObject, mutating: boolean): FieldError[] {
  const errs: FieldError[] = [];
  const names = new Set<string>();
  arr(config['webhooks']).forEach((h, i) => {
    const hook = obj(h) ?? {};
    const path = `webhooks[${i}]`;
    pushAll(errs, validateWebhook(hook, mutating, path));
    // v1 requires names to be unique within the object.
    const name = str(hook['name']) ?? '';
    if (names.has(name)) errs.push(fieldErrors.duplicate(`${path}.name`, name));
    names.add(name);
  });
  return errs;
}

function webhookConfigurationStrategy(mutating: boolean): Strategy {
  return {
    prepareForCreate: (c) => defaultConfiguration(c, mutating),
    prepareForUpdate: (c) => defaultConfiguration(c, mutating),
    validate: (c) => validateConfiguration(c, mutating),
    validateUpdate: (c, old) => {
      // As the original: what v1 forbids stays allowed on update where the stored object (written
      // through v1beta1) already has it: sideEffects other than None/NoneOnDryRun, repeated names.
      const oldHooks = arr(old['webhooks']).map((h) => obj(h) ?? {});
      const oldSideEffects = oldHooks.some((h) => !SIDE_EFFECTS.includes(String(h['sideEffects'])));
      const oldNames = oldHooks.map((h) => str(h['name']) ?? '');
      const oldDuplicates = new Set(oldNames).size !== oldNames.length;
      return validateConfiguration(c, mutating).filter(
        (e) => !((oldSideEffects && e.type === 'FieldValueNotSupported' && /\.sideEffects$/.test(e.field)) || (oldDuplicates && e.type === 'FieldValueDuplicate' && /\.name$/.test(e.field))),
      );
    },
  };
}

export const mutatingWebhookConfigurationStrategy = webhookConfigurationStrategy(true);
export const validatingWebhookConfigurationStrategy = webhookConfigurationStrategy(false);

