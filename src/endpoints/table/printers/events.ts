/**
 * Events (printEvent), for both the core v1 shape and events.<suffix>/v1.
 * The original prints both through one internal type; here the v1 shape is
 * read through the same field view (regarding -> involvedObject, note ->
 * message, deprecated* -> the core fields).
 */
import { NAME, column, wide } from '../columns.ts';
import type { Clock } from '../format.ts';
import { int, isObj, metadataOf, obj, str } from '../json.ts';
import type { Printer, Registration } from '../printer.ts';
import type { Cell, JsonObject } from '../types.ts';
import { apiGroup } from '../../../naming/index.ts';

/** The fields the printer reads, whatever the served shape. */
interface EventView {
  name: string;
  type: string;
  reason: string;
  message: string;
  involved: JsonObject;
  source: JsonObject;
  reportingController: string;
  reportingInstance: string;
  firstTimestamp: unknown;
  lastTimestamp: unknown;
  eventTime: unknown;
  count: number;
  series: JsonObject | undefined;
}

function coreView(o: JsonObject): EventView {
  return {
    name: str(metadataOf(o)['name']),
    type: str(o['type']),
    reason: str(o['reason']),
    message: str(o['message']),
    involved: obj(o['involvedObject']),
    source: obj(o['source']),
    reportingController: str(o['reportingComponent']),
    reportingInstance: str(o['reportingInstance']),
    firstTimestamp: o['firstTimestamp'],
    lastTimestamp: o['lastTimestamp'],
    eventTime: o['eventTime'],
    count: int(o['count']),
    series: isObj(o['series']) ? o['series'] : undefined,
  };
}

function eventsV1View(o: JsonObject): EventView {
  return {
    name: str(metadataOf(o)['name']),
    type: str(o['type']),
    reason: str(o['reason']),
    message: str(o['note']),
    involved: obj(o['regarding']),
    source: obj(o['deprecatedSource']),
    reportingController: str(o['reportingController']),
    reportingInstance: str(o['reportingInstance']),
    firstTimestamp: o['deprecatedFirstTimestamp'],
    lastTimestamp: o['deprecatedLastTimestamp'],
    eventTime: o['eventTime'],
    count: int(o['deprecatedCount']),
    series: isObj(o['series']) ? o['series'] : undefined,
  };
}

/** formatEventSource: component (or reporting controller), then ", host" (or reporting instance). */
function source(e: EventView): string {
  const component = str(e.source['component']) || e.reportingController;
  const instance = str(e.source['host']) || e.reportingInstance;
  return instance === '' ? component : `${component}, ${instance}`;
}

function cells(e: EventView, clock: Clock): Cell[] {
  const first = clock.parse(e.firstTimestamp) === undefined ? clock.since(e.eventTime) : clock.since(e.firstTimestamp);
  let last = clock.parse(e.lastTimestamp) === undefined ? first : clock.since(e.lastTimestamp);
  let count = e.count;
  if (e.series !== undefined) {
    last = clock.since(e.series['lastObservedTime']);
    count = int(e.series['count']);
  } else if (count === 0) {
    // Singleton events of the new API carry no count.
    count = 1;
  }
  const kind = str(e.involved['kind']).toLowerCase();
  const name = str(e.involved['name']);
  return [
    last,
    e.type,
    e.reason,
    name === '' ? kind : `${kind}/${name}`,
    str(e.involved['fieldPath']),
    source(e),
    e.message.trim(),
    first,
    count,
    e.name,
  ];
}

const columns = [
  column('Last Seen', 'string', 'Event.lastTimestamp'),
  column('Type', 'string', 'Event.type'),
  column('Reason', 'string', 'Event.reason'),
  column('Object', 'string', 'Event.involvedObject'),
  wide('Subobject', 'string', 'ObjectReference.fieldPath'),
  wide('Source', 'string', 'Event.source'),
  column('Message', 'string', 'Event.message'),
  wide('First Seen', 'string', 'Event.firstTimestamp'),
  wide('Count', 'string', 'Event.count'),
  // The name comes last and only in wide output.
  { ...NAME, priority: 1 },
];

export const eventPrinter: Printer = {
  columns,
  cells: (o, clock) => cells(coreView(o), clock),
};

export const eventsV1Printer: Printer = {
  columns,
  cells: (o, clock) => cells(eventsV1View(o), clock),
};

export const registrations: readonly Registration[] = [
  { group: '', kind: 'Event', printer: eventPrinter },
  { group: apiGroup('events'), kind: 'Event', printer: eventsV1Printer },
];
