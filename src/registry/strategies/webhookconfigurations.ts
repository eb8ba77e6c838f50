/**
 * Mutating and validating webhook configurations (spec 2.10, v1): the v1
 * defaults (failurePolicy Fail, matchPolicy Equivalent, timeoutSeconds 10,
 * empty selectors, rule scope `*`, service port 443, reinvocationPolicy
 * Never) and the original's validation: unique qualified names, rules
 * (operations, groups, versions, resource wildcards), sideEffects and
 * admissionReviewVersions required, timeouts in 1..30, exactly one of url
 * (https, no user, query or fragment) or service (path by segment). On
 * update, a rule the stored object already breaks is not enforced, as the
 * original's validationOptions.
 */
import type { KObject } from '../object.ts';
import { fieldErrors, type FieldError, type Strategy } from '../strategy.ts';
import { validateLabelSelector } from '../validation/label-selector.ts';
import { isDNS1035Label, isDNS1123Subdomain, isValidPortNum } from '../validation/names.ts';
import { arr, num, obj, setDefault, str, type JsonObject } from './util.ts';
import { pushAll } from '../../api/push-all.ts';

const OPERATIONS = ['*', 'CONNECT', 'CREATE', 'DELETE', 'UPDATE'];
const SCOPES = ['*', 'Cluster', 'Namespaced'];
const FAILURE_POLICIES = ['Fail', 'Ignore'];
const MATCH_POLICIES = ['Equivalent', 'Exact'];
const SIDE_EFFECTS = ['None', 'NoneOnDryRun'];
/** Every class the API knows (older objects may hold Unknown or Some). */
const ALL_SIDE_EFFECTS = ['None', 'NoneOnDryRun', 'Some', 'Unknown'];
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
  pushAll(errs, validateResources(arr(rule['resources']).map(String), `${path}.resources`));
  const scope = rule['scope'];
  if (scope !== undefined && scope !== null && !SCOPES.includes(String(scope))) errs.push(fieldErrors.notSupported(`${path}.scope`, scope, SCOPES));
  return errs;
}

/** validateResources: `x/*` and `*\/x` exclude what they cover, `*\/*` stands alone, `*` excludes plain resources. */
function validateResources(resources: string[], path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (resources.length === 0) errs.push(fieldErrors.required(path));
  const wildcardSub = new Set<string>();
  const wildcardRes = new Set<string>();
  let doubleWildcard = false;
  let singleWildcard = false;
  let plain = false;
  resources.forEach((resSub, i) => {
    if (resSub === '') {
      errs.push(fieldErrors.required(`${path}[${i}]`));
      return;
    }
    if (resSub === '*/*') doubleWildcard = true;
    if (resSub === '*') singleWildcard = true;
    const slash = resSub.indexOf('/');
    if (slash < 0) {
      plain = resSub !== '*';
      return;
    }
    const res = resSub.slice(0, slash);
    const sub = resSub.slice(slash + 1);
    if (wildcardSub.has(res)) errs.push(fieldErrors.invalid(`${path}[${i}]`, resSub, `if '${res}/*' is present, must not specify ${resSub}`));
    if (wildcardRes.has(sub)) errs.push(fieldErrors.invalid(`${path}[${i}]`, resSub, `if '*/${sub}' is present, must not specify ${resSub}`));
    if (sub === '*') wildcardSub.add(res);
    if (res === '*') wildcardRes.add(sub);
  });
  if (resources.length > 1 && doubleWildcard) errs.push(fieldErrors.invalid(path, resources, "if '*/*' is present, must not specify other resources"));
  if (singleWildcard && plain) errs.push(fieldErrors.invalid(path, resources, "if '*' is present, must not specify other resources without subresources"));
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
      // Go's url.Parse takes a string without a scheme as a relative reference: no scheme, no host.
      if (!url.includes('://') && !/[\u0000-\u001f\u007f]/.test(url) && !url.startsWith(':')) {
        return [
          fieldErrors.invalid(p, '', `'https' is the only allowed URL scheme${URL_FORM}`),
          fieldErrors.invalid(p, '', `host must be specified${URL_FORM}`),
        ];
      }
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
    if (svcPath === '//') {
      errs.push(fieldErrors.invalid(`${p}.path`, svcPath, 'segment[0] may not be empty'));
      return errs;
    }
    if (!svcPath.startsWith('/')) errs.push(fieldErrors.invalid(`${p}.path`, svcPath, "must start with a '/'"));
    let check = svcPath.slice(1);
    if (check.endsWith('/')) check = check.slice(0, -1);
    check.split('/').forEach((step, i) => {
      if (step === '') {
        errs.push(fieldErrors.invalid(`${p}.path`, svcPath, `segment[${i}] may not be empty`));
        return;
      }
      for (const m of isDNS1123Subdomain(step)) errs.push(fieldErrors.invalid(`${p}.path`, svcPath, `segment[${i}]: ${m}`));
    });
  }
  return errs;
}

/** What the original relaxes on update when the stored object already breaks a rule (so it can still be updated). */
interface ValidationOptions {
  readonly uniqueNames: boolean;
  readonly recognizedReviewVersion: boolean;
  readonly noSideEffects: boolean;
}

const STRICT: ValidationOptions = { uniqueNames: true, recognizedReviewVersion: true, noSideEffects: true };

function validateReviewVersions(versions: string[], requireRecognized: boolean, path: string): FieldError[] {
  if (versions.length === 0) return [fieldErrors.required(path, `must specify one of ${REVIEW_VERSIONS.join(', ')}`)];
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  let recognized = false;
  versions.forEach((v, i) => {
    if (seen.has(v)) {
      errs.push(fieldErrors.invalid(`${path}[${i}]`, v, 'duplicate version'));
      return;
    }
    seen.add(v);
    for (const m of isDNS1035Label(v)) errs.push(fieldErrors.invalid(`${path}[${i}]`, v, m));
    if (REVIEW_VERSIONS.includes(v)) recognized = true;
  });
  if (requireRecognized && !recognized) errs.push(fieldErrors.invalid(path, versions, `must include at least one of ${REVIEW_VERSIONS.join(', ')}`));
  return errs;
}

function validateWebhook(hook: JsonObject, mutating: boolean, path: string, opts: ValidationOptions = STRICT): FieldError[] {
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
  } else if (!(opts.noSideEffects ? SIDE_EFFECTS : ALL_SIDE_EFFECTS).includes(String(sideEffects))) {
    errs.push(fieldErrors.notSupported(`${path}.sideEffects`, sideEffects, opts.noSideEffects ? SIDE_EFFECTS : ALL_SIDE_EFFECTS));
  }
  pushAll(errs, validateReviewVersions(arr(hook['admissionReviewVersions']).map(String), opts.recognizedReviewVersion, `${path}.admissionReviewVersions`));
  const timeout = num(hook['timeoutSeconds']);
  if (timeout !== undefined && (timeout < 1 || timeout > 30)) {
    errs.push(fieldErrors.invalid(`${path}.timeoutSeconds`, timeout, 'the timeout value must be between 1 and 30 seconds'));
  }
  pushAll(errs, validateLabelSelector(hook['namespaceSelector'], `${path}.namespaceSelector`));
  pushAll(errs, validateLabelSelector(hook['objectSelector'], `${path}.objectSelector`));
  pushAll(errs, validateClientConfig(obj(hook['clientConfig']), `${path}.clientConfig`));
  return errs;
}

function validateConfiguration(config: KObject, mutating: boolean, opts: ValidationOptions = STRICT): FieldError[] {
  const errs: FieldError[] = [];
  const names = new Set<string>();
  arr(config['webhooks']).forEach((h, i) => {
    const hook = obj(h) ?? {};
    const path = `webhooks[${i}]`;
    pushAll(errs, validateWebhook(hook, mutating, path, opts));
    // v1 requires names to be unique within the object.
    const name = str(hook['name']) ?? '';
    if (opts.uniqueNames && name !== '') {
      if (names.has(name)) errs.push(fieldErrors.duplicate(`${path}.name`, name));
      names.add(name);
    }
  });
  return errs;
}

/** The original's validationOptions for an update: a rule the stored object already breaks is not enforced. */
function updateOptions(old: KObject): ValidationOptions {
  const hooks = arr(old['webhooks']).map((h) => obj(h) ?? {});
  const seen = new Set<string>();
  let uniqueNames = true;
  for (const h of hooks) {
    const n = str(h['name']) ?? '';
    if (n !== '' && seen.has(n)) uniqueNames = false;
    seen.add(n);
  }
  return {
    uniqueNames,
    recognizedReviewVersion: hooks.every((h) => arr(h['admissionReviewVersions']).some((v) => REVIEW_VERSIONS.includes(String(v)))),
    noSideEffects: hooks.every((h) => SIDE_EFFECTS.includes(String(h['sideEffects']))),
  };
}

function webhookConfigurationStrategy(mutating: boolean): Strategy {
  return {
    defaults: (c) => defaultConfiguration(c, mutating),
    validate: (c) => validateConfiguration(c, mutating),
    validateUpdate: (c, old) => validateConfiguration(c, mutating, updateOptions(old)),
  };
}

export const mutatingWebhookConfigurationStrategy = webhookConfigurationStrategy(true);
export const validatingWebhookConfigurationStrategy = webhookConfigurationStrategy(false);

