/**
 * Core v1 Events: the original's legacy event validation, which is all a
 * v1 client gets: the event's namespace must agree with its object's, and
 * events with an eventTime (new-style) must say who reported what.
 */
import type { KObject } from '../object.ts';
import { fieldErrors, type FieldError, type Strategy } from '../strategy.ts';
import { byteLength, isDNS1123Subdomain, isQualifiedName } from '../validation/names.ts';
import { obj, str } from './util.ts';
import { names as naming } from '../../naming/index.ts';

export const REPORTING_INSTANCE_LENGTH_LIMIT = 128;
export const ACTION_LENGTH_LIMIT = 128;
export const REASON_LENGTH_LIMIT = 128;
export const NOTE_LENGTH_LIMIT = 1024;

/** Field names a request version uses for the fields the two Event APIs name differently. */
export interface EventFieldNames {
  reportingController: string;
}

/** legacyValidateEvent, on the core (storage) form of an event. */
export function legacyValidateEvent(event: KObject, names: EventFieldNames): FieldError[] {
  const errs: FieldError[] = [];
  const namespace = event.metadata.namespace ?? '';
  const involvedNamespace = str(obj(event['involvedObject'])?.['namespace']) ?? '';
  const tooLong = (field: string, limit: number): FieldError => fieldErrors.invalid(field, '', `can have at most ${limit} characters`);
  if (!event['eventTime']) {
    // Old-style events: the namespace must match the object's ("default" stands in for none).
    if (involvedNamespace === '') {
      if (namespace !== '' && namespace !== 'default') errs.push(fieldErrors.invalid('involvedObject.namespace', involvedNamespace, 'does not match event.namespace'));
    } else if (namespace !== involvedNamespace) {
      errs.push(fieldErrors.invalid('involvedObject.namespace', involvedNamespace, 'does not match event.namespace'));
    }
  } else {
    if (involvedNamespace === '' && namespace !== 'default' && namespace !== naming.systemNamespace) {
      errs.push(fieldErrors.invalid('involvedObject.namespace', involvedNamespace, 'does not match event.namespace'));
    }
    const controller = str(event['reportingComponent']) ?? '';
    if (controller === '') errs.push(fieldErrors.required(names.reportingController));
    for (const msg of isQualifiedName(controller)) errs.push(fieldErrors.invalid(names.reportingController, controller, msg));
    const instance = str(event['reportingInstance']) ?? '';
    if (instance === '') errs.push(fieldErrors.required('reportingInstance'));
    if (byteLength(instance) > REPORTING_INSTANCE_LENGTH_LIMIT) errs.push(tooLong('reportingInstance', REPORTING_INSTANCE_LENGTH_LIMIT));
    const action = str(event['action']) ?? '';
    if (action === '') errs.push(fieldErrors.required('action'));
    if (byteLength(action) > ACTION_LENGTH_LIMIT) errs.push(tooLong('action', ACTION_LENGTH_LIMIT));
    const reason = str(event['reason']) ?? '';
    if (reason === '') errs.push(fieldErrors.required('reason'));
    if (byteLength(reason) > REASON_LENGTH_LIMIT) errs.push(tooLong('reason', REASON_LENGTH_LIMIT));
    if (byteLength(str(event['message']) ?? '') > NOTE_LENGTH_LIMIT) errs.push(tooLong('message', NOTE_LENGTH_LIMIT));
  }
  for (const msg of isDNS1123Subdomain(namespace)) errs.push(fieldErrors.invalid('namespace', namespace, msg));
  return errs;
}

/** Core v1 Events. PUT of an absent event creates it (the catalog says so). */
export const eventStrategy: Strategy = {
  validate(event) {
    return legacyValidateEvent(event, { reportingController: 'reportingComponent' });
  },
  validateUpdate(event) {
    return legacyValidateEvent(event, { reportingController: 'reportingComponent' });
  },
};
