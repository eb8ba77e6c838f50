/**
 * The older versions a v1.25-era server still serves (spec 9.3), each stored
 * in its group's current version and converted on the way (conversions/),
 * with the original's deprecation facts (the Warning text, the audit
 * annotations and the deprecated-API metric follow from them). Their shapes
 * are declared in src/openapi/types/versions.ts.
 */
import type { Conversion, Deprecation, ResourceTypeDef } from '../resource-type.ts';
import type { Strategy } from '../strategy.ts';
import { endpointSliceBeta, eventsBeta, pdbBeta, sameShape } from '../conversions/index.ts';
import { webhookConfigurationV1beta1Strategy } from '../strategies/webhookconfigurations-v1beta1.ts';
import { certificateSigningRequestV1beta1Strategy } from '../strategies/certificatesigningrequests-v1beta1.ts';
import { admissionregistrationTypes } from './admissionregistration.ts';
import { autoscalingTypes } from './autoscaling.ts';
import { batchTypes } from './batch.ts';
import { certificatesTypes } from './certificates.ts';
import { discoveryTypes } from './discovery.ts';
import { eventsTypes } from './events.ts';
import { flowcontrolTypes } from './flowcontrol.ts';
import { nodeTypes } from './node.ts';
import { policyTypes } from './policy.ts';
import { storageTypes } from './storage.ts';

const gv = (group: string, version: string): string => (group === '' ? version : `${group}/${version}`);

function find(defs: readonly ResourceTypeDef[], resource: string): ResourceTypeDef {
  const d = defs.find((x) => x.resource === resource);
  if (d === undefined) throw new Error(`no catalog entry for ${resource}`);
  return d;
}

/**
 * `current` served at `version` too: stored where `current` is, converted by
 * `convert(served apiVersion, current apiVersion)` (then on to `current`'s
 * storage when that is elsewhere, as for events).
 */
function olderVersion(
  current: ResourceTypeDef,
  version: string,
  since: string,
  removed: string,
  opts: { convert?: (served: string, stored: string, kind: string) => Conversion; strategy?: Strategy; replacement?: { version: string } } = {},
): ResourceTypeDef {
  const deprecated: Deprecation = {
    since,
    removed,
    replacement: { group: current.group, version: opts.replacement?.version ?? current.version, kind: current.kind },
  };
  const convert = opts.convert ?? sameShape;
  return {
    ...current,
    version,
    storageOf: current.storageOf ?? { group: current.group, resource: current.resource },
    conversion: convert(gv(current.group, version), gv(current.group, current.version), current.kind),
    deprecated,
    ...(opts.strategy ? { strategy: opts.strategy } : {}),
  };
}

const eventsV1 = find(eventsTypes, 'events');

/** By group, each after the group's current version (discovery lists them in this order; the first is preferred). */
export const olderVersionTypes: ResourceTypeDef[] = [
  olderVersion(find(batchTypes, 'cronjobs'), 'v1beta1', '1.21', '1.25'),
  olderVersion(find(autoscalingTypes, 'horizontalpodautoscalers'), 'v2beta2', '1.23', '1.26'),
  olderVersion(find(policyTypes, 'poddisruptionbudgets'), 'v1beta1', '1.21', '1.25', { convert: pdbBeta }),
  olderVersion(find(discoveryTypes, 'endpointslices'), 'v1beta1', '1.21', '1.25', { convert: endpointSliceBeta }),
  {
    // events.<suffix>/v1 is itself stored as core v1 Events.
    ...olderVersion(eventsV1, 'v1beta1', '1.22', '1.25'),
    storageOf: eventsV1.storageOf,
    conversion: eventsBeta(gv(eventsV1.group, 'v1beta1'), gv(eventsV1.group, 'v1')),
  },
  olderVersion(find(nodeTypes, 'runtimeclasses'), 'v1beta1', '1.22', '1.25'),
  olderVersion(find(storageTypes, 'csistoragecapacities'), 'v1beta1', '1.24', '1.27'),
  ...flowcontrolTypes.map((d) => olderVersion(d, 'v1beta1', '1.23', '1.26')),
  ...admissionregistrationTypes.map((d) =>
    olderVersion(d, 'v1beta1', '1.16', '1.22', { strategy: webhookConfigurationV1beta1Strategy(d.kind === 'MutatingWebhookConfiguration') }),
  ),
  olderVersion(find(certificatesTypes, 'certificatesigningrequests'), 'v1beta1', '1.19', '1.22', { strategy: certificateSigningRequestV1beta1Strategy }),
];
