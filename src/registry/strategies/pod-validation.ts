/**
 * Pod spec validation, the part of the original's ValidatePodSpec
 * (pkg/apis/core/validation) that clients commonly run into: containers
 * present, names, images, ports, pull and restart policies, resources,
 * volumes and mounts, env names. Paths and messages follow the original;
 * checks are run in its order so error lists read the same.
 */
import { fieldErrors, type FieldError } from '../strategy.ts';
import { isPlainObject } from '../object.ts';
import {
  inclusiveRangeError,
  isConfigMapKey,
  isDNS1123Label,
  isDNS1123Subdomain,
  isValidPortName,
  isValidPortNum,
  regexError,
} from '../validation/names.ts';
import { validateLabels } from '../validation/object-meta.ts';
import { compareQuantities, parseQuantity } from '../validation/quantity.ts';
import { arr, MAX_INT32, num, obj, str, type JsonObject } from './util.ts';
import { names } from '../../naming/index.ts';
import { pushAll } from '../../api/push-all.ts';

const PROTOCOLS = ['SCTP', 'TCP', 'UDP'] as const;
const PULL_POLICIES = ['Always', 'IfNotPresent', 'Never'] as const;
const TERMINATION_MESSAGE_POLICIES = ['File', 'FallbackToLogsOnError'] as const;
const RESTART_POLICIES = ['Always', 'OnFailure', 'Never'] as const;
const DNS_POLICIES = ['ClusterFirstWithHostNet', 'ClusterFirst', 'Default', 'None'] as const;
const QUANTITY_MSG = "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";
const ENV_NAME_FMT = '[-._a-zA-Z][-._a-zA-Z0-9]*';
const ENV_NAME_MSG = "a valid environment variable name must consist of alphabetic characters, digits, '_', '-', or '.', and must not start with a digit";

/** Native resources but hugepages may be requested below their limit; others (extended resources) must equal it. */
function overcommitAllowed(resource: string): boolean {
  return (!resource.includes('/') || resource.includes(names.nativeResourcePrefix)) && !resource.startsWith('hugepages-');
}

function enumCheck(errs: FieldError[], path: string, value: unknown, allowed: readonly string[]): void {
  if (value === undefined || value === null || value === '') errs.push(fieldErrors.required(path));
  else if (!allowed.includes(String(value))) errs.push(fieldErrors.notSupported(path, value, allowed));
}

function validateVolumes(volumes: unknown, path: string): { errs: FieldError[]; names: Set<string> } {
  const errs: FieldError[] = [];
  const names = new Set<string>();
  arr(volumes).forEach((raw, i) => {
    const v = obj(raw) ?? {};
    const p = `${path}[${i}]`;
    const name = str(v['name']) ?? '';
    if (name === '') errs.push(fieldErrors.required(`${p}.name`));
    else for (const msg of isDNS1123Label(name)) errs.push(fieldErrors.invalid(`${p}.name`, name, msg));
    if (name !== '' && names.has(name)) errs.push(fieldErrors.duplicate(`${p}.name`, name));
    names.add(name);
    const sources = Object.keys(v).filter((k) => k !== 'name' && v[k] !== undefined && v[k] !== null);
    if (sources.length > 1) errs.push(fieldErrors.forbidden(`${p}.${sources[1]}`, 'may not specify more than 1 volume type'));
  });
  return { errs, names };
}

function validateContainerPorts(ports: unknown, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const names = new Set<string>();
  arr(ports).forEach((raw, i) => {
    const port = obj(raw) ?? {};
    const p = `${path}[${i}]`;
    const name = str(port['name']) ?? '';
    if (name !== '') {
      const msgs = isValidPortName(name);
      if (msgs.length > 0) for (const msg of msgs) errs.push(fieldErrors.invalid(`${p}.name`, name, msg));
      else if (names.has(name)) errs.push(fieldErrors.duplicate(`${p}.name`, name));
      else names.add(name);
    }
    const containerPort = num(port['containerPort']) ?? 0;
    if (containerPort === 0) errs.push(fieldErrors.required(`${p}.containerPort`));
    else for (const msg of isValidPortNum(containerPort)) errs.push(fieldErrors.invalid(`${p}.containerPort`, containerPort, msg));
    const hostPort = num(port['hostPort']) ?? 0;
    if (hostPort !== 0) for (const msg of isValidPortNum(hostPort)) errs.push(fieldErrors.invalid(`${p}.hostPort`, hostPort, msg));
    enumCheck(errs, `${p}.protocol`, port['protocol'], PROTOCOLS);
  });
  return errs;
}

function validateEnv(env: unknown, path: string): FieldError[] {
  const errs: FieldError[] = [];
  arr(env).forEach((raw, i) => {
    const e = obj(raw) ?? {};
    const p = `${path}[${i}]`;
    const name = str(e['name']) ?? '';
    if (name === '') {
      errs.push(fieldErrors.required(`${p}.name`));
      return;
    }
    if (!new RegExp(`^${ENV_NAME_FMT}$`).test(name)) {
      errs.push(fieldErrors.invalid(`${p}.name`, name, regexError(ENV_NAME_MSG, ENV_NAME_FMT, 'my.env-name', 'MY_ENV.NAME', 'MyEnvName1')));
    }
    // The chdir rules of config keys apply to env names too.
    for (const msg of isConfigMapKey(name).filter((m) => m.startsWith('must not'))) errs.push(fieldErrors.invalid(`${p}.name`, name, msg));
  });
  return errs;
}

function validateVolumeMounts(mounts: unknown, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  arr(mounts).forEach((raw, i) => {
    const m = obj(raw) ?? {};
    const p = `${path}[${i}]`;
    if (!str(m['name'])) errs.push(fieldErrors.required(`${p}.name`));
    const mountPath = str(m['mountPath']) ?? '';
    if (mountPath === '') errs.push(fieldErrors.required(`${p}.mountPath`));
    else if (seen.has(mountPath)) errs.push(fieldErrors.invalid(`${p}.mountPath`, mountPath, 'must be unique'));
    seen.add(mountPath);
  });
  return errs;
}

function validateResources(resources: unknown, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const r = obj(resources);
  if (!r) return errs;
  const limits = obj(r['limits']) ?? {};
  const requests = obj(r['requests']) ?? {};
  const checkQuantity = (p: string, q: unknown): boolean => {
    const parsed = parseQuantity(q);
    if (parsed === undefined) {
      errs.push(fieldErrors.invalid(p, q, QUANTITY_MSG));
      return false;
    }
    if (parsed < 0n) {
      errs.push(fieldErrors.invalid(p, String(q), 'must be greater than or equal to 0'));
      return false;
    }
    return true;
  };
  for (const [name, q] of Object.entries(limits)) checkQuantity(`${path}.limits[${name}]`, q);
  for (const [name, q] of Object.entries(requests)) {
    if (!checkQuantity(`${path}.requests[${name}]`, q)) continue;
    if (name in limits) {
      const cmp = compareQuantities(q, limits[name]);
      if (cmp === undefined) continue;
      if (cmp !== 0 && !overcommitAllowed(name)) {
        errs.push(fieldErrors.invalid(`${path}.requests`, String(q), `must be equal to ${name} limit of ${String(limits[name])}`));
      } else if (cmp > 0) {
        errs.push(fieldErrors.invalid(`${path}.requests`, String(q), `must be less than or equal to ${name} limit of ${String(limits[name])}`));
      }
    } else if (!overcommitAllowed(name)) {
      errs.push(fieldErrors.required(`${path}.limits`, 'Limit must be set for non overcommitable resources'));
    }
  }
  return errs;
}

export function validateContainerCommon(c: JsonObject, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const name = str(c['name']) ?? '';
  if (name === '') errs.push(fieldErrors.required(`${path}.name`));
  else for (const msg of isDNS1123Label(name)) errs.push(fieldErrors.invalid(`${path}.name`, name, msg));
  if (!str(c['image'])) errs.push(fieldErrors.required(`${path}.image`));
  enumCheck(errs, `${path}.terminationMessagePolicy`, c['terminationMessagePolicy'], TERMINATION_MESSAGE_POLICIES);
  pushAll(errs, validateContainerPorts(c['ports'], `${path}.ports`));
  pushAll(errs, validateEnv(c['env'], `${path}.env`));
  pushAll(errs, validateVolumeMounts(c['volumeMounts'], `${path}.volumeMounts`));
  enumCheck(errs, `${path}.imagePullPolicy`, c['imagePullPolicy'], PULL_POLICIES);
  pushAll(errs, validateResources(c['resources'], `${path}.resources`));
  return errs;
}

/** ValidatePodSpec, the commonly hit part; `path` is `spec` or `spec.template.spec`. */
export function validatePodSpec(spec: JsonObject, path: string): FieldError[] {
  const errs: FieldError[] = [];
  pushAll(errs, validateVolumes(spec['volumes'], `${path}.volumes`).errs);

  const containers = arr(spec['containers']);
  const names = new Set<string>();
  if (containers.length === 0) errs.push(fieldErrors.required(`${path}.containers`));
  containers.forEach((raw, i) => {
    const c = obj(raw) ?? {};
    const p = `${path}.containers[${i}]`;
    pushAll(errs, validateContainerCommon(c, p));
    const name = str(c['name']) ?? '';
    if (names.has(name)) errs.push(fieldErrors.duplicate(`${p}.name`, name));
    else names.add(name);
    if (c['restartPolicy'] !== undefined && c['restartPolicy'] !== null) {
      errs.push(fieldErrors.forbidden(`${p}.restartPolicy`, 'may not be set for non-init containers'));
    }
  });
  arr(spec['initContainers']).forEach((raw, i) => {
    const c = obj(raw) ?? {};
    const p = `${path}.initContainers[${i}]`;
    pushAll(errs, validateContainerCommon(c, p));
    const restart = c['restartPolicy'];
    if (restart !== undefined && restart !== null && restart !== 'Always') {
      errs.push(fieldErrors.notSupported(`${p}.restartPolicy`, restart, ['Always']));
    }
    // Names are unique across regular and init containers.
    const name = str(c['name']) ?? '';
    if (names.has(name)) errs.push(fieldErrors.duplicate(`${p}.name`, name));
    else if (name !== '') names.add(name);
  });

  enumCheck(errs, `${path}.restartPolicy`, spec['restartPolicy'], RESTART_POLICIES);
  enumCheck(errs, `${path}.dnsPolicy`, spec['dnsPolicy'], DNS_POLICIES);
  if (isPlainObject(spec['nodeSelector'])) pushAll(errs, validateLabels(spec['nodeSelector'] as Record<string, string>, `${path}.nodeSelector`));
  for (const field of ['serviceAccountName', 'nodeName', 'priorityClassName']) {
    const v = str(spec[field]);
    if (v) for (const msg of isDNS1123Subdomain(v)) errs.push(fieldErrors.invalid(`${path}.${field}`, v, msg));
  }
  const deadline = spec['activeDeadlineSeconds'];
  if (deadline !== undefined && deadline !== null) {
    const n = num(deadline);
    if (n === undefined || n < 1 || n > MAX_INT32) errs.push(fieldErrors.invalid(`${path}.activeDeadlineSeconds`, deadline, inclusiveRangeError(1, MAX_INT32)));
  }
  for (const field of ['hostname', 'subdomain']) {
    const v = str(spec[field]);
    if (v) for (const msg of isDNS1123Label(v)) errs.push(fieldErrors.invalid(`${path}.${field}`, v, msg));
  }
  return errs;
}

/** ValidatePodTemplateSpec: template labels, annotations are checked like object metadata; then the spec. */
export function validatePodTemplateSpec(template: unknown, path: string): FieldError[] {
  const t = obj(template);
  if (!t) return [fieldErrors.required(path)];
  const errs: FieldError[] = [];
  const meta = obj(t['metadata']);
  if (meta && isPlainObject(meta['labels'])) pushAll(errs, validateLabels(meta['labels'] as Record<string, string>, `${path}.metadata.labels`));
  pushAll(errs, validatePodSpec(obj(t['spec']) ?? {}, `${path}.spec`));
  return errs;
}
