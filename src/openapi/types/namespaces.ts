/**
 * Schema packages and the group/version each is served as. Names follow the
 * original's scheme (`io.k8s.api.core.v1.Pod`) under the internal schema
 * prefix; OpenAPI output renames them to the flavor's (publicSchemaName).
 * Groups are the flavor's (src/naming/).
 */
import { namespace } from '../schema-dsl.ts';
import { apiGroup, names, INTERNAL_SCHEMA_PREFIX } from '../../naming/index.ts';

const api = (pkg: string, group: string, version: string) => namespace(`${INTERNAL_SCHEMA_PREFIX}.api.${pkg}.${version}`, { group, version });

/** Shared meta types (ObjectMeta, ListMeta, Status...): not a served group of their own. */
export const meta = namespace(`${INTERNAL_SCHEMA_PREFIX}.apimachinery.pkg.apis.meta.v1`, { group: names.metaGroup, version: 'v1' });

export const core = api('core', '', 'v1');
export const apps = api('apps', 'apps', 'v1');
export const batch = api('batch', 'batch', 'v1');
export const autoscalingV1 = api('autoscaling', 'autoscaling', 'v1');
export const autoscalingV2 = api('autoscaling', 'autoscaling', 'v2');
export const policy = api('policy', 'policy', 'v1');
export const coordination = api('coordination', apiGroup('coordination'), 'v1');
export const events = api('events', apiGroup('events'), 'v1');
export const rbac = api('rbac', apiGroup('rbac.authorization'), 'v1');
export const certificates = api('certificates', apiGroup('certificates'), 'v1');
export const admissionregistration = api('admissionregistration', apiGroup('admissionregistration'), 'v1');
export const authentication = api('authentication', apiGroup('authentication'), 'v1');
export const authorization = api('authorization', apiGroup('authorization'), 'v1');
export const scheduling = api('scheduling', apiGroup('scheduling'), 'v1');
export const node = api('node', apiGroup('node'), 'v1');
export const discovery = api('discovery', apiGroup('discovery'), 'v1');
export const networking = api('networking', apiGroup('networking'), 'v1');
export const storage = api('storage', apiGroup('storage'), 'v1');
export const flowcontrol = api('flowcontrol', apiGroup('flowcontrol.apiserver'), 'v1');
