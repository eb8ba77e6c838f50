/**
 * Schema packages and the group/version each is served as. Names follow the
 * original's scheme (`io.k8s.api.core.v1.Pod`) with `orch` in place of the
 * product token; clients find kinds by the GVK extension, not by name.
 */
import { namespace } from '../schema-dsl.ts';

const api = (pkg: string, group: string, version: string) => namespace(`io.orch.api.${pkg}.${version}`, { group, version });

/** Shared meta types (ObjectMeta, ListMeta, Status...): not a served group of their own. */
export const meta = namespace('io.orch.apimachinery.pkg.apis.meta.v1', { group: 'meta.orch.io', version: 'v1' });

export const core = api('core', '', 'v1');
export const apps = api('apps', 'apps', 'v1');
export const batch = api('batch', 'batch', 'v1');
export const autoscalingV1 = api('autoscaling', 'autoscaling', 'v1');
export const autoscalingV2 = api('autoscaling', 'autoscaling', 'v2');
export const policy = api('policy', 'policy', 'v1');
export const coordination = api('coordination', 'coordination.orch.io', 'v1');
export const events = api('events', 'events.orch.io', 'v1');
export const rbac = api('rbac', 'rbac.authorization.orch.io', 'v1');
export const certificates = api('certificates', 'certificates.orch.io', 'v1');
export const admissionregistration = api('admissionregistration', 'admissionregistration.orch.io', 'v1');
export const authentication = api('authentication', 'authentication.orch.io', 'v1');
export const authorization = api('authorization', 'authorization.orch.io', 'v1');
export const scheduling = api('scheduling', 'scheduling.orch.io', 'v1');
export const node = api('node', 'node.orch.io', 'v1');
export const discovery = api('discovery', 'discovery.orch.io', 'v1');
export const networking = api('networking', 'networking.orch.io', 'v1');
export const storage = api('storage', 'storage.orch.io', 'v1');
export const flowcontrol = api('flowcontrol', 'flowcontrol.apiserver.orch.io', 'v1');
