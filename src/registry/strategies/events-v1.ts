/**
 * events.<suffix>/v1 Events. They share storage with core v1 Events; the
 * hooks receive the v1 shape and validate it through its core form (the
 * original validates the internal form): the legacy rules, then the strict
 * ones a v1 client gets (type Normal or Warning, eventTime, regarding,
 * action, reason, reportingController, reportingInstance; no deprecated*
 * fields in new objects), and on update most fields are immutable.
 */
import { jsonEqual, type KObject } from '../object.ts';
import { fieldErrors, type FieldError, type Strategy } from '../strategy.ts';
import { validateImmutableField } from '../validation/object-meta.ts';
import { eventFromV1 } from './event-conversion.ts';
import { legacyValidateEvent } from './events.ts';
import { num, obj, str } from './util.ts';
import { pushAll } from '../../api/push-all.ts';

const V1_NAMES = { reportingController: 'reportingController' };

function validateSeries(event: KObject): FieldError[] {
  const series = obj(event['series']);
  if (!series) return [];
  const errs: FieldError[] = [];
  if ((num(series['count']) ?? 0) < 2) errs.push(fieldErrors.invalid('series.count', '', 'should be at least 2'));
  if (!series['lastObservedTime']) errs.push(fieldErrors.required('series.lastObservedTime'));
  return errs;
}

function isSet(v: unknown): boolean {
  return v !== undefined && v !== null && v !== '' && v !== 0;
}

/** ValidateEventCreate for an events.<suffix>/v1 request; `event` is the v1 shape. */
export function validateV1EventCreate(event: KObject): FieldError[] {
  const core = eventFromV1(event);
  const errs = legacyValidateEvent(core, V1_NAMES);
  pushAll(errs, validateSeries(event));
  if (!event['eventTime']) errs.push(fieldErrors.required('eventTime'));
  const type = str(event['type']) ?? '';
  if (type !== 'Normal' && type !== 'Warning') errs.push(fieldErrors.invalid('type', '', `has invalid value: ${type}`));
  if (!obj(event['regarding'])) errs.push(fieldErrors.required('regarding'));
  // The fields kept only for core v1 readers may not be written through v1.
  for (const field of ['deprecatedFirstTimestamp', 'deprecatedLastTimestamp', 'deprecatedCount']) {
    if (isSet(event[field])) errs.push(fieldErrors.invalid(field, '', 'needs to be unset'));
  }
  const source = obj(event['deprecatedSource']);
  if (source && (str(source['component']) || str(source['host']))) errs.push(fieldErrors.invalid('deprecatedSource', '', 'needs to be unset'));
  return errs;
}

/** ValidateEventUpdate for an events.<suffix>/v1 request; both objects in the v1 shape. */
export function validateV1EventUpdate(event: KObject, old: KObject): FieldError[] {
  const errs = legacyValidateEvent(eventFromV1(event), V1_NAMES);
  if (!jsonEqual(event['series'] ?? null, old['series'] ?? null)) pushAll(errs, validateSeries(event));
  for (const field of [
    'regarding', 'reason', 'note', 'deprecatedSource', 'deprecatedFirstTimestamp', 'deprecatedLastTimestamp',
    'deprecatedCount', 'type', 'eventTime', 'action', 'related', 'reportingController', 'reportingInstance',
  ]) {
    pushAll(errs, validateImmutableField(event[field], old[field], field));
  }
  return errs;
}

export const eventV1Strategy: Strategy = {
  validate(event) {
    return validateV1EventCreate(event);
  },
  validateUpdate(event, old) {
    return validateV1EventUpdate(event, old);
  },
};
