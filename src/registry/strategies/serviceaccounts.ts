/**
 * ServiceAccounts: references to Secrets keep only the name (the original's
 * cleanSecretReferences), and a DELETE answers the deleted object.
 */
import type { KObject } from '../object.ts';
import type { Strategy } from '../strategy.ts';
import { arr, obj } from './util.ts';

function cleanSecretReferences(sa: KObject): void {
  if (!Array.isArray(sa['secrets'])) return;
  sa['secrets'] = arr(sa['secrets']).map((s) => {
    const name = obj(s)?.['name'];
    return name === undefined ? {} : { name };
  });
}

export const serviceAccountStrategy: Strategy = {
  returnDeletedObject: true,
  prepareForCreate(sa) {
    cleanSecretReferences(sa);
  },
  prepareForUpdate(sa) {
    cleanSecretReferences(sa);
  },
};
