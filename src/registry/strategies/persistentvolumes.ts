/**
 * PersistentVolumes and PersistentVolumeClaims: both start Pending; a
 * volume records when its phase last changed (lastPhaseTransitionTime, GA
 * in the original's v1.31). volumeMode defaults to Filesystem.
 */
import type { Strategy } from '../strategy.ts';
import { ensureObj, obj, setDefault, specOf, str } from './util.ts';

export const persistentVolumeStrategy: Strategy = {
  defaults(pv) {
    const spec = specOf(pv);
    setDefault(spec, 'persistentVolumeReclaimPolicy', 'Retain');
    setDefault(spec, 'volumeMode', 'Filesystem');
  },
  prepareForCreate(pv, ctx) {
    pv['status'] = { phase: 'Pending', lastPhaseTransitionTime: ctx.now };
  },
  prepareForUpdate(pv, old, ctx) {
    if (ctx.subresource !== 'status') return;
    // A phase change stamps the time, unless the writer set a new time itself.
    const status = ensureObj(pv, 'status');
    const oldStatus = obj(old['status']) ?? {};
    if (str(status['phase']) !== str(oldStatus['phase'])) {
      const stamp = status['lastPhaseTransitionTime'];
      if (!stamp || stamp === oldStatus['lastPhaseTransitionTime']) status['lastPhaseTransitionTime'] = ctx.now;
    }
  },
};

export const persistentVolumeClaimStrategy: Strategy = {
  defaults(pvc) {
    setDefault(specOf(pvc), 'volumeMode', 'Filesystem');
  },
  prepareForCreate(pvc) {
    pvc['status'] = { phase: 'Pending' };
  },
};
