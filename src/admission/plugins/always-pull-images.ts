/**
 * AlwaysPullImages: every container of a new pod, and of a pod updated with
 * an image it did not have, pulls its image always, so one tenant cannot run
 * an image another pulled onto the node without credentials to pull it, as
 * the original's plugin/pkg/admission/alwayspullimages. Validation refuses a
 * pod whose policy is anything else (a later mutation changed it).
 */
import { StatusError } from '../../api/status.ts';
import type { AdmissionAttributes, AdmissionPlugin } from '../types.ts';
import type { AdmissionPluginFactory } from '../plugin-table.ts';
import { admissionForbidden, containersWithPath, isPods, podSpec, str } from './pod-util.ts';

/** An update whose containers (all kinds) use only images the old pod used. */
function isUpdateWithNoNewImages(attrs: AdmissionAttributes): boolean {
  if (attrs.operation !== 'UPDATE') return false;
  const spec = podSpec(attrs.object);
  const old = attrs.oldObject === null ? undefined : podSpec(attrs.oldObject);
  if (spec === undefined || old === undefined) return false;
  const oldImages = new Set(containersWithPath(old).map(({ c }) => str(c['image'])));
  return containersWithPath(spec).every(({ c }) => oldImages.has(str(c['image'])));
}

export function alwaysPullImages(): AdmissionPlugin {
  return {
    name: 'AlwaysPullImages',
    handles: (rt, sub, op) => isPods(rt) && sub === '' && (op === 'CREATE' || op === 'UPDATE'),
    admit(attrs) {
      if (isUpdateWithNoNewImages(attrs)) return;
      const spec = podSpec(attrs.object);
      if (spec === undefined) return;
      for (const { c } of containersWithPath(spec)) c['imagePullPolicy'] = 'Always';
    },
    validate(attrs) {
      if (isUpdateWithNoNewImages(attrs)) return;
      const spec = podSpec(attrs.object);
      if (spec === undefined) return;
      const problems: StatusError[] = [];
      for (const { c, path } of containersWithPath(spec)) {
        const policy = c['imagePullPolicy'];
        if (policy !== 'Always') {
          problems.push(admissionForbidden(attrs, `${path}.imagePullPolicy: Unsupported value: ${JSON.stringify(policy ?? '')}: supported values: "Always"`));
        }
      }
      if (problems.length === 1) throw problems[0]!;
      // The original aggregates several: not a Status, so a 500 with the list as its message.
      if (problems.length > 1) throw new StatusError(500, '', `[${problems.map((p) => p.message).join(', ')}]`);
    },
  };
}

export const alwaysPullImagesFactory: AdmissionPluginFactory = {
  name: 'AlwaysPullImages',
  create: () => alwaysPullImages(),
};
