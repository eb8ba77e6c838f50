/**
 * AlwaysAdmit: admits everything, as the original's (deprecated) plugin. It
 * handles nothing, so the chain compiles it away.
 */
import type { AdmissionPluginFactory } from '../plugin-table.ts';

export const alwaysAdmitFactory: AdmissionPluginFactory = {
  name: 'AlwaysAdmit',
  create: () => ({ name: 'AlwaysAdmit', handles: () => false }),
};
