/**
 * The node rules the original's Node authorizer carries itself
 * (bootstrappolicy.NodeRules, v1.25): what every node may do that the graph
 * does not subdivide — report its Node and pod status, read services, pods
 * and nodes, create events, evictions and CSRs, check reviews. The graph-
 * bound resources (secrets, config maps, PVCs, PVs, volume attachments,
 * service account tokens, leases, CSI nodes) are decided before these rules
 * are looked at (authorizer.ts), so their entries here are never reached.
 */
import { apiGroup } from '../../naming/index.ts';
import type { AuthorizationAttributes } from '../types.ts';

export interface StaticRule {
  readonly verbs: readonly string[];
  readonly apiGroups: readonly string[];
  readonly resources: readonly string[];
}

const READ = ['get', 'list', 'watch'];

export function nodeRules(): StaticRule[] {
  const rule = (verbs: string[], group: string, ...resources: string[]): StaticRule => ({ verbs, apiGroups: [group], resources });
  return [
    rule(['create'], apiGroup('authentication'), 'tokenreviews'),
    rule(['create'], apiGroup('authorization'), 'subjectaccessreviews', 'localsubjectaccessreviews'),
    rule(READ, '', 'services'),
    rule(['create', 'get', 'list', 'watch'], '', 'nodes'),
    rule(['update', 'patch'], '', 'nodes/status'),
    rule(['update', 'patch'], '', 'nodes'),
    rule(['create', 'update', 'patch'], '', 'events'),
    rule(READ, '', 'pods'),
    rule(['create', 'delete'], '', 'pods'),
    rule(['update', 'patch'], '', 'pods/status'),
    rule(['create'], '', 'pods/eviction'),
    rule(READ, '', 'secrets', 'configmaps'),
    rule(['get'], '', 'persistentvolumeclaims', 'persistentvolumes'),
    rule(['get'], '', 'endpoints'),
    rule(['create', 'get', 'list', 'watch'], apiGroup('certificates'), 'certificatesigningrequests'),
    rule(['get', 'create', 'update', 'patch', 'delete'], apiGroup('coordination'), 'leases'),
    rule(['get'], apiGroup('storage'), 'volumeattachments'),
    rule(['create'], '', 'serviceaccounts/token'),
    rule(['get', 'update', 'patch'], '', 'persistentvolumeclaims/status'),
    rule(['get', 'watch', 'list'], apiGroup('storage'), 'csidrivers'),
    rule(['get', 'create', 'update', 'patch', 'delete'], apiGroup('storage'), 'csinodes'),
    rule(READ, apiGroup('node'), 'runtimeclasses'),
  ];
}

/** RBAC's rule matching for resource requests (these rules have no names and no non-resource URLs). */
export function rulesAllow(attrs: AuthorizationAttributes, rules: readonly StaticRule[]): boolean {
  if (!attrs.isResourceRequest) return false;
  const combined = attrs.subresource === '' ? attrs.resource : `${attrs.resource}/${attrs.subresource}`;
  return rules.some(
    (r) =>
      (r.verbs.includes('*') || r.verbs.includes(attrs.verb)) &&
      (r.apiGroups.includes('*') || r.apiGroups.includes(attrs.apiGroup)) &&
      (r.resources.includes('*') || r.resources.includes(combined)),
  );
}
