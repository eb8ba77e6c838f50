/**
 * certificates.<suffix>/v1 CertificateSigningRequest.
 * Field names, types, markers and proto numbers follow the original API; descriptions are ours.
 */
import { f, S, I32, BYTES, TIME, list, map, type StructDecl } from '../schema-dsl.ts';
import { certificates } from './namespaces.ts';

export const certificatesTypes: readonly StructDecl[] = [
  certificates.kind('CertificateSigningRequest', 'A request for a certificate from a named signer.', {
    spec: f(certificates.ref('CertificateSigningRequestSpec'), 'The request; immutable.', { required: true, proto: 2 }),
    status: f(certificates.ref('CertificateSigningRequestStatus'), 'Approval state and the issued certificate.', { proto: 3 }),
  }),
  certificates.struct('CertificateSigningRequestSpec', 'A certificate request.', {
    request: f(BYTES, 'PEM-encoded PKCS#10 request.', { required: true, listType: 'atomic', proto: 1 }),
    signerName: f(S, 'Signer asked to sign.', { required: true, proto: 7 }),
    expirationSeconds: f(I32, 'Requested lifetime; at least 600.', { proto: 8 }),
    usages: f(list(S), 'Key usages requested.', { listType: 'atomic', proto: 5 }),
    username: f(S, 'User who made the request; set by the server.', { proto: 2 }),
    uid: f(S, 'UID of that user; set by the server.', { proto: 3 }),
    groups: f(list(S), 'Groups of that user; set by the server.', { listType: 'atomic', proto: 4 }),
    extra: f(map(list(S)), 'Extra attributes of that user; set by the server.', { proto: 6 }),
  }),
  certificates.struct('CertificateSigningRequestStatus', 'State of a certificate request.', {
    conditions: f(list(certificates.ref('CertificateSigningRequestCondition')), 'Approved, Denied or Failed.', { listType: 'map', listMapKeys: ['type'], proto: 1 }),
    certificate: f(BYTES, 'Issued certificate chain, PEM-encoded.', { listType: 'atomic', proto: 2 }),
  }),
  certificates.struct('CertificateSigningRequestCondition', 'One condition of a certificate request.', {
    type: f(S, 'Approved, Denied or Failed.', { required: true, proto: 1 }),
    status: f(S, 'True, False or Unknown.', { required: true, proto: 6 }),
    reason: f(S, 'Machine-readable, CamelCase reason for the last transition.', { proto: 2 }),
    message: f(S, 'Human-readable details about the last transition.', { proto: 3 }),
    lastUpdateTime: f(TIME, 'When the condition was last updated.', { proto: 4 }),
    lastTransitionTime: f(TIME, 'When the condition last changed from one status to another.', { proto: 5 }),
  }),
];
