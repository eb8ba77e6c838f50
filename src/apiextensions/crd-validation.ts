/**
 * Validation of a CustomResourceDefinition itself (apiextensions/v1), with
 * the original's field paths and messages (apiextensions-apiserver's
 * pkg/apis/apiextensions/validation): names, group, scope, versions (exactly
 * one storage version, at least one served), the structural schema of every
 * version, subresources, printer columns and conversion.
 */
import { fieldErrors, type FieldError } from '../registry/strategy.ts';
import { isDNS1035Label, isDNS1123Label, isDNS1123Subdomain } from '../registry/validation/names.ts';
import { isPlainObject, type KObject } from '../registry/object.ts';
import { validateStructural } from './schema.ts';
import { MARK } from './schema.ts';

const KIND_PATTERN = /^[a-zA-Z]([-a-zA-Z0-9]*[a-zA-Z0-9])?$/;
const KIND_MESSAGE = 'may have mixed case, but should otherwise match: [a-z]([-a-z0-9]*[a-z0-9])?';
const PRINTER_TYPES = ['integer', 'number', 'string', 'boolean', 'date'];
const PRINTER_FORMATS = ['int32', 'int64', 'float', 'double', 'byte', 'date', 'date-time', 'password'];

function str(v: unknown): string {
  return typeof v === 'string' ? v : '';
}

function strs(v: unknown): string[] {
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
}

function obj(v: unknown): Record<string, unknown> {
  return isPlainObject(v) ? v : {};
}

/** Errors of a CRD's spec and name (create and update). */
export function validateCrd(crd: KObject): FieldError[] {
  const errs: FieldError[] = [];
  const spec = obj(crd['spec']);
  const group = str(spec['group']);
  const names = obj(spec['names']);
  const plural = str(names['plural']);
  const name = crd.metadata.name ?? '';
  if (name !== `${plural}.${group}`) errs.push(fieldErrors.invalid('metadata.name', name, 'must be spec.names.plural+"."+spec.group'));

  if (group === '') errs.push(fieldErrors.required('spec.group', ''));
  else {
    for (const m of isDNS1123Subdomain(group)) errs.push(fieldErrors.invalid('spec.group', group, m));
    if (group.split('.').length < 2) errs.push(fieldErrors.invalid('spec.group', group, 'should be a domain with at least one dot'));
  }
  const scope = spec['scope'];
  if (scope === undefined || scope === '') errs.push(fieldErrors.required('spec.scope', ''));
  else if (scope !== 'Cluster' && scope !== 'Namespaced') errs.push(fieldErrors.notSupported('spec.scope', scope, ['Cluster', 'Namespaced']));

  errs.push(...validateNames(names, 'spec.names'));
  errs.push(...validateVersions(spec));
  if (spec['preserveUnknownFields'] === true) {
    errs.push(fieldErrors.invalid('spec.preserveUnknownFields', true, `cannot set to true, set ${MARK.preserveUnknownFields} to true in spec.versions[*].schema instead`));
  }
  errs.push(...validateConversion(spec));
  return errs;
}

/** spec.names (also status.acceptedNames' shape). */
export function validateNames(names: Record<string, unknown>, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const plural = str(names['plural']);
  const singular = str(names['singular']);
  const kind = str(names['kind']);
  const listKind = str(names['listKind']);
  if (plural === '') errs.push(fieldErrors.required(`${path}.plural`, ''));
  else for (const m of isDNS1035Label(plural)) errs.push(fieldErrors.invalid(`${path}.plural`, plural, m));
  if (singular !== '') for (const m of isDNS1035Label(singular)) errs.push(fieldErrors.invalid(`${path}.singular`, singular, m));
  if (kind === '') errs.push(fieldErrors.required(`${path}.kind`, ''));
  else if (!KIND_PATTERN.test(kind)) errs.push(fieldErrors.invalid(`${path}.kind`, kind, KIND_MESSAGE));
  if (listKind !== '') {
    if (!KIND_PATTERN.test(listKind)) errs.push(fieldErrors.invalid(`${path}.listKind`, listKind, KIND_MESSAGE));
    if (listKind === kind) errs.push(fieldErrors.invalid(`${path}.listKind`, listKind, 'kind and listKind may not be the same or listKind'));
  }
  strs(names['shortNames']).forEach((s, i) => {
    for (const m of isDNS1123Label(s)) errs.push(fieldErrors.invalid(`${path}.shortNames[${i}]`, s, m));
  });
  strs(names['categories']).forEach((c, i) => {
    for (const m of isDNS1123Label(c)) errs.push(fieldErrors.invalid(`${path}.categories[${i}]`, c, m));
  });
  return errs;
}

function validateVersions(spec: Record<string, unknown>): FieldError[] {
  const errs: FieldError[] = [];
  const versions = Array.isArray(spec['versions']) ? (spec['versions'] as unknown[]) : [];
  if (versions.length === 0) {
    errs.push(fieldErrors.required('spec.versions', 'must have exactly one version marked as storage version'));
    return errs;
  }
  const seen = new Set<string>();
  let storage = 0;
  let served = 0;
  versions.forEach((raw, i) => {
    const path = `spec.versions[${i}]`;
    const v = obj(raw);
    const name = str(v['name']);
    if (name === '') errs.push(fieldErrors.required(`${path}.name`, ''));
    else {
      for (const m of isDNS1035Label(name)) errs.push(fieldErrors.invalid(`${path}.name`, name, m));
      if (seen.has(name)) errs.push(fieldErrors.invalid('spec.versions', versions, 'must contain unique version names'));
      seen.add(name);
    }
    if (v['storage'] === true) storage++;
    if (v['served'] === true) served++;
    const schema = obj(v['schema']);
    const open = schema['openAPIV3Schema'];
    if (!isPlainObject(open)) errs.push(fieldErrors.required(`${path}.schema.openAPIV3Schema`, 'schemas are required'));
    else errs.push(...validateStructural(`${path}.schema.openAPIV3Schema`, open));
    errs.push(...validateSubresources(obj(v['subresources']), `${path}.subresources`, v['subresources']));
    const columns = Array.isArray(v['additionalPrinterColumns']) ? (v['additionalPrinterColumns'] as unknown[]) : [];
    columns.forEach((c, j) => errs.push(...validatePrinterColumn(obj(c), `${path}.additionalPrinterColumns[${j}]`)));
  });
  if (storage !== 1) errs.push(fieldErrors.invalid('spec.versions', versions, 'must have exactly one version marked as storage version'));
  if (served === 0) errs.push(fieldErrors.invalid('spec.versions', versions, 'must have at least one version marked as served'));
  return errs;
}

function validateSubresources(sub: Record<string, unknown>, path: string, raw: unknown): FieldError[] {
  const errs: FieldError[] = [];
  if (raw === undefined) return errs;
  const scale = sub['scale'];
  if (isPlainObject(scale)) {
    const specPath = str(scale['specReplicasPath']);
    const statusPath = str(scale['statusReplicasPath']);
    if (specPath === '') errs.push(fieldErrors.required(`${path}.scale.specReplicasPath`, ''));
    else if (!specPath.startsWith('.spec.') || !/^(\.[A-Za-z0-9_-]+)+$/.test(specPath)) errs.push(fieldErrors.invalid(`${path}.scale.specReplicasPath`, specPath, 'should be a json path under .spec'));
    if (statusPath === '') errs.push(fieldErrors.required(`${path}.scale.statusReplicasPath`, ''));
    else if (!statusPath.startsWith('.status.') || !/^(\.[A-Za-z0-9_-]+)+$/.test(statusPath)) errs.push(fieldErrors.invalid(`${path}.scale.statusReplicasPath`, statusPath, 'should be a json path under .status'));
    const selector = scale['labelSelectorPath'];
    if (typeof selector === 'string' && selector !== '' && !((selector.startsWith('.spec.') || selector.startsWith('.status.')) && /^(\.[A-Za-z0-9_-]+)+$/.test(selector))) {
      errs.push(fieldErrors.invalid(`${path}.scale.labelSelectorPath`, selector, 'should be a json path under either .spec or .status'));
    }
  }
  return errs;
}

function validatePrinterColumn(c: Record<string, unknown>, path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (str(c['name']) === '') errs.push(fieldErrors.required(`${path}.name`, ''));
  const type = str(c['type']);
  if (type === '') errs.push(fieldErrors.required(`${path}.type`, ''));
  else if (!PRINTER_TYPES.includes(type)) errs.push(fieldErrors.notSupported(`${path}.type`, type, PRINTER_TYPES));
  const format = str(c['format']);
  if (format !== '' && !PRINTER_FORMATS.includes(format)) errs.push(fieldErrors.notSupported(`${path}.format`, format, PRINTER_FORMATS));
  const jsonPath = str(c['jsonPath']);
  if (jsonPath === '') errs.push(fieldErrors.required(`${path}.jsonPath`, ''));
  else if (!jsonPath.startsWith('.')) errs.push(fieldErrors.invalid(`${path}.jsonPath`, jsonPath, 'must be a simple json path starting with .'));
  return errs;
}

function validateConversion(spec: Record<string, unknown>): FieldError[] {
  const errs: FieldError[] = [];
  const conv = spec['conversion'];
  if (!isPlainObject(conv)) return errs;
  const strategy = conv['strategy'];
  if (strategy !== 'None' && strategy !== 'Webhook') {
    errs.push(strategy === undefined ? fieldErrors.required('spec.conversion.strategy', '') : fieldErrors.notSupported('spec.conversion.strategy', strategy, ['None', 'Webhook']));
    return errs;
  }
  const webhook = obj(conv['webhook']);
  if (strategy === 'None') {
    if (conv['webhook'] !== undefined) errs.push(fieldErrors.forbidden('spec.conversion.webhook', 'should not be set when strategy is not set to Webhook'));
    return errs;
  }
  if (conv['webhook'] === undefined) {
    errs.push(fieldErrors.required('spec.conversion.webhook', 'required when strategy is set to Webhook'));
    return errs;
  }
  const reviewVersions = strs(webhook['conversionReviewVersions']);
  if (reviewVersions.length === 0) errs.push(fieldErrors.required('spec.conversion.webhook.conversionReviewVersions', 'must include at least one of v1, v1beta1'));
  else if (!reviewVersions.some((v) => v === 'v1' || v === 'v1beta1')) errs.push(fieldErrors.invalid('spec.conversion.webhook.conversionReviewVersions', reviewVersions, 'must include at least one of v1, v1beta1'));
  const cc = webhook['clientConfig'];
  if (!isPlainObject(cc)) {
    errs.push(fieldErrors.required('spec.conversion.webhook.clientConfig', 'required when strategy is set to Webhook'));
    return errs;
  }
  const url = cc['url'];
  const service = cc['service'];
  if ((url === undefined) === (service === undefined)) errs.push(fieldErrors.required('spec.conversion.webhook.clientConfig', 'exactly one of url or service is required'));
  if (typeof url === 'string') {
    let u: URL | undefined;
    try {
      u = new URL(url);
    } catch {
      errs.push(fieldErrors.invalid('spec.conversion.webhook.clientConfig.url', url, 'must be a valid URL'));
    }
    if (u !== undefined && u.protocol !== 'https:') errs.push(fieldErrors.invalid('spec.conversion.webhook.clientConfig.url', url, "'https' is the only allowed URL scheme"));
  }
  return errs;
}

/** Fields that cannot change once set (the original: scope; the stored versions may not be dropped). */
export function validateCrdUpdate(next: KObject, old: KObject): FieldError[] {
  const errs = validateCrd(next);
  const ns = obj(next['spec']);
  const os = obj(old['spec']);
  // The original lets scope change only while no version is stored; we keep it simple: never.
  if (os['scope'] !== undefined && ns['scope'] !== os['scope']) errs.push(fieldErrors.invalid('spec.scope', ns['scope'], 'field is immutable'));
  const stored = strs(obj(old['status'])['storedVersions']);
  const versions = new Set((Array.isArray(ns['versions']) ? (ns['versions'] as unknown[]) : []).map((v) => str(obj(v)['name'])));
  for (const s of stored) {
    if (!versions.has(s)) errs.push(fieldErrors.invalid('status.storedVersions', stored, `must appear in spec.versions`));
  }
  return errs;
}
