/** admissionregistration.<suffix>/v1 webhook configurations (spec 2.10); generation follows the webhooks. */
import type { ResourceTypeDef } from '../resource-type.ts';
import { mutatingWebhookConfigurationStrategy, validatingWebhookConfigurationStrategy } from '../strategies/webhookconfigurations.ts';
import { API_EXTENSIONS } from './subresources.ts';
import { apiGroup } from '../../naming/index.ts';

const admissionV1 = { group: apiGroup('admissionregistration'), version: 'v1', namespaced: false, categories: API_EXTENSIONS, tracksGeneration: true } as const;

export const admissionregistrationTypes: ResourceTypeDef[] = [
  {
    ...admissionV1, resource: 'mutatingwebhookconfigurations', kind: 'MutatingWebhookConfiguration', singularName: 'mutatingwebhookconfiguration',
    strategy: mutatingWebhookConfigurationStrategy,
  },
  {
    ...admissionV1, resource: 'validatingwebhookconfigurations', kind: 'ValidatingWebhookConfiguration', singularName: 'validatingwebhookconfiguration',
    strategy: validatingWebhookConfigurationStrategy,
  },
];
