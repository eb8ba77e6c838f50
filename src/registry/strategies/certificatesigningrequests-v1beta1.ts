/**
 * CertificateSigningRequests written through certificates.<suffix>/v1beta1
 * (spec 9.3): usages default to digital signature and key encipherment and the
 * signer to the legacy one; v1's validation applies without what only v1
 * demands (no legacy signer, known and unique usages, unique condition types).
 * The original picks a kubelet signer for kubelet-shaped requests; this
 * server leaves those to the legacy signer (a deviation).
 */
import type { KObject } from '../object.ts';
import type { FieldError, Strategy, StrategyContext } from '../strategy.ts';
import { certificateSigningRequestStrategy, LEGACY_UNKNOWN_SIGNER } from './certificatesigningrequests.ts';
import { arr, isMainResource, setDefault, specOf } from './util.ts';

function defaultV1beta1(csr: KObject, ctx: StrategyContext): void {
  if (!isMainResource(ctx)) return;
  const spec = specOf(csr);
  if (arr(spec['usages']).length === 0) spec['usages'] = ['digital signature', 'key encipherment'];
  setDefault(spec, 'signerName', LEGACY_UNKNOWN_SIGNER);
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
