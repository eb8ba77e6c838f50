/**
 * CertificateSigningRequests (certificates.<suffix>/v1, spec 2.6): the
 * requester's identity is recorded from the request, never from the body;
 * the request must be a signed PKCS#10 PEM; signerName and usages are
 * required; conditions are unique by type. Updates of the main resource
 * change metadata only, /approval changes conditions only, /status may also
 * set the certificate once (registry/certificates and
 * pkg/apis/certificates/validation of the original).
 */
import type { KObject } from '../object.ts';
import { cloneJson, jsonEqual } from '../object.ts';
import { fieldErrors, type FieldError, type Strategy, type StrategyContext } from '../strategy.ts';
import { goBytes, invalidShown } from '../validation/go-values.ts';
import { DNS1123_SUBDOMAIN_MAX_LENGTH, DNS1123_LABEL_MAX_LENGTH, byteLength, isDNS1123Label, isDNS1123Subdomain } from '../validation/names.ts';
import { checkCertificateRequestPem, checkIssuedCertificates } from './csr-pem.ts';
import { arr, ensureObj, num, obj, specOf, str, type JsonObject } from './util.ts';
import { names } from '../../naming/index.ts';
import { pushAll } from '../../api/push-all.ts';

export const LEGACY_UNKNOWN_SIGNER = names.signers.legacyUnknown;
export const MIN_EXPIRATION_SECONDS = 600;

export const KNOWN_USAGES = [
  'any', 'cert sign', 'client auth', 'code signing', 'content commitment', 'crl sign', 'data encipherment',
  'decipher only', 'digital signature', 'email protection', 'encipher only', 'ipsec end system', 'ipsec tunnel',
  'ipsec user', 'key agreement', 'key encipherment', 'microsoft sgc', 'netscape sgc', 'ocsp signing', 's/mime',
  'server auth', 'signing', 'timestamping',
];

/** Condition types that may only ever be True. */
const TRUE_ONLY_CONDITIONS = ['Approved', 'Denied', 'Failed'];
const ALL_STATUSES = ['False', 'True', 'Unknown'];

interface Options {
  allowSettingApprovalConditions: boolean;
  allowSettingCertificate: boolean;
  // Tolerated only when the stored object already has the problem.
  allowBothApprovedAndDenied: boolean;
  allowLegacySignerName: boolean;
  allowDuplicateConditionTypes: boolean;
  allowEmptyConditionType: boolean;
  allowArbitraryCertificate: boolean;
  allowUnknownUsages: boolean;
  allowDuplicateUsages: boolean;
}

function conditions(csr: KObject): JsonObject[] {
  return arr(obj(csr['status'])?.['conditions']).map((c) => obj(c) ?? {});
}

function certificateBytes(csr: KObject): Buffer {
  const v = str(obj(csr['status'])?.['certificate']);
  return v ? Buffer.from(v, 'base64') : Buffer.alloc(0);
}

function optionsFor(csr: KObject, old: KObject | undefined): Options {
  const oldConds = old ? conditions(old) : [];
  const oldTypes = oldConds.map((c) => str(c['type']) ?? '');
  const oldSpec = old ? obj(old['spec']) ?? {} : {};
  const oldUsages = arr(oldSpec['usages']).map(String);
  return {
    allowSettingApprovalConditions: false,
    allowSettingCertificate: false,
    allowBothApprovedAndDenied: oldTypes.includes('Approved') && oldTypes.includes('Denied'),
    allowLegacySignerName: oldSpec['signerName'] === LEGACY_UNKNOWN_SIGNER,
    allowDuplicateConditionTypes: new Set(oldTypes).size !== oldTypes.length,
    allowEmptyConditionType: old !== undefined && oldTypes.includes(''),
    allowArbitraryCertificate:
      old !== undefined && (certificateBytes(csr).equals(certificateBytes(old)) || checkIssuedCertificates(certificateBytes(old)) !== undefined),
    allowUnknownUsages: oldUsages.some((u) => !KNOWN_USAGES.includes(u)),
    allowDuplicateUsages: new Set(oldUsages).size !== oldUsages.length,
  };
}

/** ValidateSignerName: `<domain>/<path>`, each part made of DNS names. */
export function validateSignerName(path: string, signerName: string): FieldError[] {
  if (signerName === '') return [fieldErrors.required(path)];
  const segments = signerName.split('/');
  if (segments.length !== 2) return [fieldErrors.invalid(path, signerName, "must be a fully qualified domain and path of the form 'example.com/signer-name'")];
  const [domain, rest] = segments as [string, string];
  const errs: FieldError[] = [];
  if (byteLength(domain) > DNS1123_SUBDOMAIN_MAX_LENGTH) errs.push(fieldErrors.tooLong(path, DNS1123_SUBDOMAIN_MAX_LENGTH));
  const labels = domain.split('.');
  for (const lbl of labels) {
    const msgs = isDNS1123Label(lbl);
    if (msgs.length > 0) {
      for (const msg of msgs) errs.push(fieldErrors.invalid(path, domain, `validating label ${JSON.stringify(lbl)}: ${msg}`));
      break;
    }
  }
  if (labels.length < 2) errs.push(fieldErrors.invalid(path, domain, 'should be a domain with at least two segments separated by dots'));
  for (const lbl of rest.split('.')) {
    const msgs = isDNS1123Subdomain(lbl);
    if (msgs.length > 0) {
      for (const msg of msgs) errs.push(fieldErrors.invalid(path, rest, `validating label ${JSON.stringify(lbl)}: ${msg}`));
      break;
    }
  }
  const max = DNS1123_SUBDOMAIN_MAX_LENGTH + (DNS1123_SUBDOMAIN_MAX_LENGTH + DNS1123_LABEL_MAX_LENGTH + 1) + 1;
  if (byteLength(signerName) > max) errs.push(fieldErrors.tooLong(path, max));
  return errs;
}

function validateConditions(csr: KObject, opts: Options): FieldError[] {
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  let approved = false;
  let denied = false;
  conditions(csr).forEach((c, i) => {
    const p = `status.conditions[${i}]`;
    const type = str(c['type']) ?? '';
    if (!opts.allowEmptyConditionType && type === '') errs.push(fieldErrors.required(`${p}.type`));
    const allowed = TRUE_ONLY_CONDITIONS.includes(type) ? ['True'] : ALL_STATUSES;
    const status = str(c['status']) ?? '';
    if (status === '') errs.push(fieldErrors.required(`${p}.status`));
    else if (!allowed.includes(status)) errs.push(fieldErrors.notSupported(`${p}.status`, status, allowed));
    if (!opts.allowBothApprovedAndDenied) {
      if (type === 'Approved') {
        approved = true;
        if (denied) errs.push(fieldErrors.invalid(`${p}.type`, type, 'Approved and Denied conditions are mutually exclusive'));
      } else if (type === 'Denied') {
        denied = true;
        if (approved) errs.push(fieldErrors.invalid(`${p}.type`, type, 'Approved and Denied conditions are mutually exclusive'));
      }
    }
    if (!opts.allowDuplicateConditionTypes) {
      if (seen.has(type)) errs.push(fieldErrors.duplicate(`${p}.type`, type));
      seen.add(type);
    }
  });
  return errs;
}

function validateCSR(csr: KObject, opts: Options): FieldError[] {
  const errs: FieldError[] = [];
  const spec = obj(csr['spec']) ?? {};
  const request = Buffer.from(str(spec['request']) ?? '', 'base64');
  const requestError = checkCertificateRequestPem(request);
  // Go shows an absent request as a nil slice, an empty one as []byte{}.
  if (requestError !== undefined) errs.push(invalidShown('spec.request', spec['request'] === undefined || spec['request'] === null ? '[]byte(nil)' : goBytes(request), requestError));
  const usages = arr(spec['usages']);
  if (usages.length === 0) errs.push(fieldErrors.required('spec.usages'));
  if (!opts.allowUnknownUsages) {
    usages.forEach((u, i) => {
      if (!KNOWN_USAGES.includes(String(u))) errs.push(fieldErrors.notSupported(`spec.usages[${i}]`, u, KNOWN_USAGES));
    });
  }
  if (!opts.allowDuplicateUsages) {
    const seen = new Set<string>();
    usages.forEach((u, i) => {
      if (seen.has(String(u))) errs.push(fieldErrors.duplicate(`spec.usages[${i}]`, u));
      seen.add(String(u));
    });
  }
  const signerName = str(spec['signerName']) ?? '';
  if (!opts.allowLegacySignerName && signerName === LEGACY_UNKNOWN_SIGNER) {
    errs.push(fieldErrors.invalid('spec.signerName', signerName, 'the legacy signerName is not allowed via this API version'));
  } else {
    pushAll(errs, validateSignerName('spec.signerName', signerName));
  }
  const expiration = num(spec['expirationSeconds']);
  if (expiration !== undefined && expiration < MIN_EXPIRATION_SECONDS) {
    errs.push(fieldErrors.invalid('spec.expirationSeconds', expiration, 'may not specify a duration less than 600 seconds (10 minutes)'));
  }
  pushAll(errs, validateConditions(csr, opts));
  if (!opts.allowArbitraryCertificate) {
    const certError = checkIssuedCertificates(certificateBytes(csr));
    if (certError !== undefined) errs.push(fieldErrors.invalid('status.certificate', '<certificate data>', certError));
  }
  return errs;
}

function ofType(csr: KObject, type: string): JsonObject[] {
  return conditions(csr).filter((c) => c['type'] === type);
}

function validateCSRUpdate(csr: KObject, old: KObject, opts: Options): FieldError[] {
  const errs = validateCSR(csr, opts);
  for (const t of ['Approved', 'Denied', 'Failed']) {
    if (ofType(csr, t).length < ofType(old, t).length) errs.push(fieldErrors.forbidden('status.conditions', `updates may not remove a condition of type "${t}"`));
  }
  if (!opts.allowSettingApprovalConditions) {
    for (const t of ['Approved', 'Denied']) {
      const before = ofType(old, t);
      const after = ofType(csr, t);
      if (after.length > before.length) errs.push(fieldErrors.forbidden('status.conditions', `updates may not add a condition of type "${t}"`));
      else if (after.length === before.length && !jsonEqual(after, before)) {
        errs.push(fieldErrors.forbidden('status.conditions', `updates may not modify a condition of type "${t}"`));
      }
    }
  }
  const cert = certificateBytes(csr);
  const oldCert = certificateBytes(old);
  if (!cert.equals(oldCert)) {
    if (!opts.allowSettingCertificate) errs.push(fieldErrors.forbidden('status.certificate', 'updates may not set certificate content'));
    else if (oldCert.length > 0) errs.push(fieldErrors.forbidden('status.certificate', 'updates may not modify existing certificate content'));
  }
  return errs;
}

/** Condition status defaults to True; timestamps are filled, keeping a transition time that did not change. */
function populateConditions(csr: KObject, old: KObject, now: string): void {
  const oldConds = conditions(old);
  for (const c of conditions(csr)) {
    if (!c['status']) c['status'] = 'True';
    if (!c['lastUpdateTime']) c['lastUpdateTime'] = now;
    if (!c['lastTransitionTime']) {
      const same = oldConds.find((o) => o['type'] === c['type'] && o['status'] === c['status'] && o['lastTransitionTime']);
      c['lastTransitionTime'] = same ? same['lastTransitionTime'] : now;
    }
  }
}

function preserveConditionInstances(csr: KObject, old: KObject, type: string): void {
  const now = arr(obj(csr['status'])?.['conditions']);
  const before = conditions(old).filter((c) => c['type'] === type);
  const indices = now.flatMap((c, i) => (obj(c)?.['type'] === type ? [i] : []));
  if (indices.length !== before.length) return;
  indices.forEach((at, k) => {
    now[at] = before[k];
  });
}

function keep(target: JsonObject, source: JsonObject, key: string): void {
  if (source[key] === undefined) delete target[key];
  else target[key] = source[key];
}

export const certificateSigningRequestStrategy: Strategy = {
  prepareForCreate(csr, ctx: StrategyContext) {
    const spec = specOf(csr);
    for (const f of ['username', 'uid', 'groups', 'extra']) delete spec[f];
    const user = ctx.user;
    if (user) {
      if (user.name) spec['username'] = user.name;
      if (user.uid) spec['uid'] = user.uid;
      if (user.groups.length > 0) spec['groups'] = [...user.groups];
      if (user.extra && Object.keys(user.extra).length > 0) {
        spec['extra'] = Object.fromEntries(Object.entries(user.extra).map(([k, v]) => [k, [...v]]));
      }
    }
    // No pre-approved requests.
    csr['status'] = {};
  },

  prepareForUpdate(csr, old, ctx) {
    keep(csr, old, 'spec');
    const status = ensureObj(csr, 'status');
    const oldStatus = obj(old['status']) ?? {};
    switch (ctx.subresource) {
      case 'status':
        // Approval and denial belong to /approval: stored instances win, and
        // adding or removing one is left for validation to refuse.
        for (const t of ['Approved', 'Denied']) preserveConditionInstances(csr, old, t);
        populateConditions(csr, old, ctx.now);
        break;
      case 'approval': {
        // The approval changes the conditions only: everything else is the stored object's (metadata too).
        const next = status['conditions'];
        for (const k of Object.keys(csr)) delete csr[k];
        Object.assign(csr, cloneJson(old));
        const kept = { ...oldStatus };
        if (next === undefined) delete kept['conditions'];
        else kept['conditions'] = next;
        csr['status'] = kept;
        populateConditions(csr, old, ctx.now);
        break;
      }
      default:
        csr['status'] = old['status'];
        if (csr['status'] === undefined) delete csr['status'];
    }
  },

  validate(csr) {
    return validateCSR(csr, optionsFor(csr, undefined));
  },

  validateUpdate(csr, old, ctx) {
    const opts = optionsFor(csr, old);
    if (ctx.subresource === 'status') opts.allowSettingCertificate = true;
    if (ctx.subresource === 'approval') opts.allowSettingApprovalConditions = true;
    return validateCSRUpdate(csr, old, opts);
  },
};
