/**
 * certificates.<suffix>/v1: CertificateSigningRequests. The original does not
 * restrict their names (any path segment will do).
 */
import type { ResourceTypeDef } from '../resource-type.ts';
import { certificateSigningRequestStrategy } from '../strategies/certificatesigningrequests.ts';
import { approval, status } from './subresources.ts';
import { apiGroup } from '../../naming/index.ts';

export const certificatesTypes: ResourceTypeDef[] = [
  {
    group: apiGroup('certificates'), version: 'v1', resource: 'certificatesigningrequests', kind: 'CertificateSigningRequest',
    singularName: 'certificatesigningrequest', namespaced: false, shortNames: ['csr'],
    subresources: [approval, status('CertificateSigningRequest')], nameRule: 'path-segment', strategy: certificateSigningRequestStrategy,
  },
];
