/**
 * events.<suffix>/v1: the same events as core v1, kept in the core storage
 * and converted on the way (strategies/event-conversion.ts).
 */
import type { ResourceTypeDef } from '../resource-type.ts';
import { eventV1Strategy } from '../strategies/events-v1.ts';
import { eventFromV1, eventToV1 } from '../strategies/event-conversion.ts';
import { apiGroup } from '../../naming/index.ts';

export const eventsTypes: ResourceTypeDef[] = [
  {
    group: apiGroup('events'), version: 'v1', resource: 'events', kind: 'Event', singularName: 'event', namespaced: true, shortNames: ['ev'],
    allowCreateOnUpdate: true, storageOf: { group: '', resource: 'events' }, strategy: eventV1Strategy,
    conversion: { toStorage: eventFromV1, fromStorage: eventToV1 },
  },
];
