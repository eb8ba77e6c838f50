/** storage.<suffix>/v1 as the original serves it in v1.32. */
import type { ResourceTypeDef } from '../resource-type.ts';
import { storageClassStrategy } from '../strategies/storageclasses.ts';
import { csiStorageCapacityStrategy } from '../strategies/csistoragecapacities.ts';
import { statusResetOnCreate } from '../strategies/util.ts';
import { status } from './subresources.ts';
import { apiGroup } from '../../naming/index.ts';

const storageV1 = { group: apiGroup('storage'), version: 'v1', namespaced: false } as const;

export const storageTypes: ResourceTypeDef[] = [
  { ...storageV1, resource: 'csidrivers', kind: 'CSIDriver', singularName: 'csidriver' },
  { ...storageV1, resource: 'csinodes', kind: 'CSINode', singularName: 'csinode' },
  {
    ...storageV1, resource: 'csistoragecapacities', kind: 'CSIStorageCapacity', singularName: 'csistoragecapacity', namespaced: true,
    strategy: csiStorageCapacityStrategy,
  },
  { ...storageV1, resource: 'storageclasses', kind: 'StorageClass', singularName: 'storageclass', shortNames: ['sc'], strategy: storageClassStrategy },
  {
    // `attached` has no omitempty in v1: the reset status still shows it.
    ...storageV1, resource: 'volumeattachments', kind: 'VolumeAttachment', singularName: 'volumeattachment',
    subresources: [status('VolumeAttachment')], strategy: statusResetOnCreate(() => ({ attached: false })),
  },
];
