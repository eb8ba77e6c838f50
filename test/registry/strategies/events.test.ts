/** Core v1 and events.orch.io/v1 Events: validation and the conversion both APIs share storage through. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { eventFromV1, eventToV1 } from '../../../src/registry/strategies/event-conversion.ts';
import { eventStrategy } from '../../../src/registry/strategies/events.ts';
import { eventV1Strategy } from '../../../src/registry/strategies/events-v1.ts';
import { ctx, lines } from './helpers.ts';
import type { KObject } from '../../../src/registry/object.ts';

const coreEvent = (): KObject => ({
  apiVersion: 'v1',
  kind: 'Event',
  metadata: { name: 'web-1.17a', namespace: 'default', uid: 'u', resourceVersion: '7' },
  involvedObject: { kind: 'Pod', namespace: 'default', name: 'web-1', uid: 'p', apiVersion: 'v1', fieldPath: 'spec.containers{web}' },
  reason: 'Pulled',
  message: 'Successfully pulled image',
  source: { component: 'orchlet', host: 'node-1' },
  firstTimestamp: '2025-01-01T00:00:00Z',
  lastTimestamp: '2025-01-01T00:01:00Z',
  count: 3,
  type: 'Normal',
  eventTime: null,
  reportingComponent: 'orchlet',
  reportingInstance: 'node-1',
});

const v1Event = (): KObject => ({
  apiVersion: 'events.orch.io/v1',
  kind: 'Event',
  metadata: { name: 'web-1.17b', namespace: 'default' },
  eventTime: '2025-01-01T00:00:00.000000Z',
  regarding: { kind: 'Pod', namespace: 'default', name: 'web-1' },
  reason: 'Scheduled',
  action: 'Binding',
  note: 'Successfully assigned default/web-1 to node-1',
  type: 'Normal',
  reportingController: 'default-scheduler',
  reportingInstance: 'default-scheduler-node-0',
});

describe('event conversion', () => {
  it('renames the fields both ways', () => {
    const v1 = eventToV1(coreEvent());
    assert.equal(v1.apiVersion, 'events.orch.io/v1');
    assert.deepEqual(v1['regarding'], coreEvent()['involvedObject']);
    assert.equal(v1['note'], 'Successfully pulled image');
    assert.deepEqual(v1['deprecatedSource'], { component: 'orchlet', host: 'node-1' });
    assert.equal(v1['deprecatedFirstTimestamp'], '2025-01-01T00:00:00Z');
    assert.equal(v1['deprecatedLastTimestamp'], '2025-01-01T00:01:00Z');
    assert.equal(v1['deprecatedCount'], 3);
    assert.equal(v1['reportingController'], 'orchlet');
    for (const gone of ['involvedObject', 'message', 'source', 'firstTimestamp', 'lastTimestamp', 'count', 'reportingComponent']) {
      assert.equal(Object.hasOwn(v1, gone), false, gone);
    }
  });

  it('round-trips without loss in both directions', () => {
    assert.deepEqual(eventFromV1(eventToV1(coreEvent())), coreEvent());
    assert.deepEqual(eventToV1(eventFromV1(v1Event())), v1Event());
  });

  it('does not change its input', () => {
    const e = coreEvent();
    eventToV1(e);
    assert.deepEqual(e, coreEvent());
  });
});

describe('core v1 events', () => {
  it('accept an old-style event whose namespace matches its object', () => {
    assert.deepEqual(eventStrategy.validate!(coreEvent(), ctx()), []);
  });

  it('refuse a namespace that does not match the object', () => {
    const e = coreEvent();
    e.metadata.namespace = 'other';
    assert.deepEqual(lines(eventStrategy.validate!(e, ctx())), ['involvedObject.namespace: Invalid value: "default": does not match event.namespace']);
  });

  it('require the reporting fields on new-style events, under their v1 names', () => {
    const e = coreEvent();
    e['eventTime'] = '2025-01-01T00:00:00.000000Z';
    delete e['reportingComponent'];
    delete e['reportingInstance'];
    assert.deepEqual(lines(eventStrategy.validate!(e, ctx())), [
      'reportingComponent: Required value',
      "reportingComponent: Invalid value: \"\": name part must be non-empty",
      "reportingComponent: Invalid value: \"\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
      'reportingInstance: Required value',
      'action: Required value',
    ]);
  });
});

describe('events.orch.io/v1 events', () => {
  it('accept a complete event', () => {
    assert.deepEqual(eventV1Strategy.validate!(v1Event(), ctx()), []);
  });

  it('require type Normal or Warning, eventTime, regarding, action, reason and the reporter', () => {
    const e: KObject = { metadata: { name: 'e', namespace: 'default' }, type: 'Info' };
    const errs = lines(eventV1Strategy.validate!(e, ctx()));
    assert.ok(errs.includes('eventTime: Required value'));
    assert.ok(errs.includes('type: Invalid value: "": has invalid value: Info'));
    assert.ok(errs.includes('regarding: Required value'));
  });

  it('refuse the deprecated fields in new objects', () => {
    const e = { ...v1Event(), deprecatedCount: 2, deprecatedFirstTimestamp: '2025-01-01T00:00:00Z', deprecatedSource: { component: 'x' } };
    assert.deepEqual(lines(eventV1Strategy.validate!(e, ctx())), [
      'deprecatedFirstTimestamp: Invalid value: "": needs to be unset',
      'deprecatedCount: Invalid value: "": needs to be unset',
      'deprecatedSource: Invalid value: "": needs to be unset',
    ]);
  });

  it('keep most fields on update but let the series grow', () => {
    const old = v1Event();
    const grown = { ...old, series: { count: 2, lastObservedTime: '2025-01-01T00:05:00.000000Z' } };
    assert.deepEqual(eventV1Strategy.validateUpdate!(grown, old, ctx()), []);
    const badSeries = { ...old, series: { count: 1 } };
    assert.deepEqual(lines(eventV1Strategy.validateUpdate!(badSeries, old, ctx())), [
      'series.count: Invalid value: "": should be at least 2',
      'series.lastObservedTime: Required value',
    ]);
    assert.deepEqual(lines(eventV1Strategy.validateUpdate!({ ...old, reason: 'Other' }, old, ctx())), ['reason: Invalid value: "Other": field is immutable']);
  });
});
