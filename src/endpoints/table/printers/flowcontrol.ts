/**
 * Priority and fairness: FlowSchemas and PriorityLevelConfigurations, with
 * the original's columns (printers.go printFlowSchema,
 * printPriorityLevelConfiguration; v1beta2 names them
 * AssuredConcurrencyShares). Descriptions are ours.
 */
import { AGE, NAME, column, text } from '../columns.ts';
import { metadataOf, obj, objs, optInt, str } from '../json.ts';
import type { Printer, Registration } from '../printer.ts';
import type { Cell } from '../types.ts';
import { apiGroup } from '../../../naming/index.ts';

export const flowSchemaPrinter: Printer = {
  columns: [
    NAME,
    column('PriorityLevel', 'string', text('The name of the priority level configuration this flow schema sends its requests to.')),
    column('MatchingPrecedence', 'string', text('The precedence of this flow schema among those that match a request: the lowest wins.')),
    column('DistinguisherMethod', 'string', text('How flows are told apart within this schema (ByUser, ByNamespace), or none.')),
    AGE,
    column('MissingPL', 'string', text('references a broken or non-existent PriorityLevelConfiguration')),
  ],
  cells(o, clock) {
    const meta = metadataOf(o);
    const spec = obj(o['spec']);
    const method = obj(spec['distinguisherMethod']);
    // The Dangling condition's status, `?` until the config consumer has written one.
    const dangling = objs(obj(o['status'])['conditions']).find((c) => c['type'] === 'Dangling');
    return [
      str(meta['name']),
      str(obj(spec['priorityLevelConfiguration'])['name']),
      optInt(spec['matchingPrecedence']) ?? 0,
      str(method['type']) || '<none>',
      clock.since(meta['creationTimestamp']),
      dangling === undefined ? '?' : str(dangling['status']),
    ];
  },
};

export const priorityLevelPrinter: Printer = {
  columns: [
    NAME,
    column('Type', 'string', text('Exempt (never queued or limited) or Limited.')),
    column('AssuredConcurrencyShares', 'string', text("The level's share of the server's concurrency limit.")),
    column('Queues', 'string', text('The number of queues of the level.')),
    column('HandSize', 'string', text('The number of queues a flow is dealt by shuffle sharding.')),
    column('QueueLengthLimit', 'string', text('The most requests one queue holds.')),
    AGE,
  ],
  cells(o, clock) {
    const meta = metadataOf(o);
    const spec = obj(o['spec']);
    const limited = spec['limited'] === undefined ? undefined : obj(spec['limited']);
    const queuing = limited === undefined ? undefined : obj(obj(limited['limitResponse'])['queuing']);
    const queued = queuing !== undefined && Object.keys(queuing).length > 0;
    const cell = (v: number | undefined, shown: boolean): Cell => (shown && v !== undefined ? v : '<none>');
    return [
      str(meta['name']),
      str(spec['type']),
      cell(optInt(limited?.['assuredConcurrencyShares']), limited !== undefined),
      cell(optInt(queuing?.['queues']), queued),
      cell(optInt(queuing?.['handSize']), queued),
      cell(optInt(queuing?.['queueLengthLimit']), queued),
      clock.since(meta['creationTimestamp']),
    ];
  },
};

export const registrations: readonly Registration[] = [
  { group: apiGroup('flowcontrol.apiserver'), kind: 'FlowSchema', printer: flowSchemaPrinter },
  { group: apiGroup('flowcontrol.apiserver'), kind: 'PriorityLevelConfiguration', printer: priorityLevelPrinter },
];
