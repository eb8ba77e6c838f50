/**
 * CertificateSigningRequests written through certificates.<suffix>/v1beta1
 * (spec 9.3): usages default to digital signature and key encipherment and the
 * signer to the legacy one; v1's validation applies without what only v1
 * demands (no legacy signer, known and unique usages, unique condition types).
 * As the original, a request shaped as a kubelet's client or serving
 * certificate gets that signer (defaultSignerNameFromSpec).
 */
import type { KObject } from '../object.ts';
import type { FieldError, Strategy, StrategyContext } from '../strategy.ts';
import { certificateSigningRequestStrategy, LEGACY_UNKNOWN_SIGNER } from './certificatesigningrequests.ts';
import { arr, isMainResource, setDefault, specOf } from './util.ts';
import { defaultSignerNameFromSpec, V1BETA1_DEFAULT_USAGES } from '../../certificates/signers/index.ts';

function defaultV1beta1(csr: KObject, ctx: StrategyContext): void {
  if (!isMainResource(ctx)) return;
  const spec = specOf(csr);
  if (arr(spec['usages']).length === 0) spec['usages'] = [...V1BETA1_DEFAULT_USAGES];
  if (typeof spec['signerName'] !== 'string' || spec['signerName'] === '') {
    const request = typeof spec['request'] === 'string' ? Buffer.from(spec['request'], 'base64') : new Uint8Array(0);
    const usages = arr(spec['usages']).filter((u): u is string => typeof u === 'string');
    spec['signerName'] = request.length === 0 ? LEGACY_UNKNOWN_SIGNER : defaultSignerNameFromSpec(request, usages);
  }
}

function v1beta1Allows(e: FieldError): boolean {
  if (e.field === 'spec.signerName') return e.message.includes('the legacy signerName is not allowed');
  if (/^spec\.usages\[\d+\]$/.test(e.field)) return e.type === 'FieldValueNotSupported' || e.type === 'FieldValueDuplicate';
  if (/^status\.conditions\[\d+\]\.type$/.test(e.field)) return e.type === 'FieldValueDuplicate';
  return false;
}

const v1 = certificateSigningRequestStrategy;

export const certificateSigningRequestV1beta1Strategy: Strategy = {
  ...v1,
  prepareForCreate(c, ctx) {
    defaultV1beta1(c, ctx);
    v1.prepareForCreate?.(c, ctx);
  },
  prepareForUpdate(c, old, ctx) {
    defaultV1beta1(c, ctx);
    v1.prepareForUpdate?.(c, old, ctx);
  },
  validate: (c, ctx) => (v1.validate?.(c, ctx) ?? []).filter((e) => !v1beta1Allows(e)),
  validateUpdate: (c, old, ctx) => (v1.validateUpdate?.(c, old, ctx) ?? []).filter((e) => !v1beta1Allows(e)),
};
