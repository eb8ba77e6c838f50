/**
 * The Node authorization mode, after the original's NodeAuthorizer
 * (plugin/pkg/auth/authorizer/node/node_authorizer.go, v1.25). Only node
 * identities (`system:node:<name>` in `system:nodes`) get an opinion:
 *
 * - secrets, config maps: get/list/watch of one named object reachable from
 *   a pod bound to the node;
 * - PVCs, PVs, volume attachments: get of a reachable one (PVC status:
 *   update/patch);
 * - service accounts: create of the `token` subresource of a reachable one;
 * - leases: in the node-lease namespace, the node's own (create by any name,
 *   which admission narrows); CSI nodes likewise;
 * - everything else: the static node rules (rules.ts).
 *
 * Anything else is "no opinion" with the original's reason, so a later
 * mode (RBAC) may still allow. Decisions read only the in-memory graph.
 */
import { apiGroup, names } from '../../naming/index.ts';
import type { UserInfo } from '../../server/context.ts';
import type { AuthorizationAttributes, AuthorizationResult, Authorizer } from '../types.ts';
import type { RulesResult } from '../rule-resolver.ts';
import type { NodeGraph, VertexType } from './graph.ts';
import { nodeRules, rulesAllow, type StaticRule } from './rules.ts';

export const NODE_USER_PREFIX = 'system:node:';
export const NODES_GROUP = 'system:nodes';

const ALLOW: AuthorizationResult = Object.freeze({ decision: 'allow', reason: '' });
const NONE: AuthorizationResult = Object.freeze({ decision: 'noOpinion', reason: '' });

function noOpinion(reason: string): AuthorizationResult {
  return { decision: 'noOpinion', reason };
}

/** The node's name if the user is a node (the original's default node identifier); '' for an unnamed node. */
export function nodeIdentity(user: UserInfo): { nodeName: string } | undefined {
  if (!user.name.startsWith(NODE_USER_PREFIX)) return undefined;
  if (!user.groups.includes(NODES_GROUP)) return undefined;
  return { nodeName: user.name.slice(NODE_USER_PREFIX.length) };
}

export class NodeAuthorizer implements Authorizer {
  readonly name = 'Node';
  readonly #graph: NodeGraph;
  readonly #rules: readonly StaticRule[];
  readonly #groups: { storage: string; coordination: string };

  constructor(graph: NodeGraph, rules: readonly StaticRule[] = nodeRules()) {
    this.#graph = graph;
    this.#rules = rules;
    this.#groups = { storage: apiGroup('storage'), coordination: apiGroup('coordination') };
  }

  authorize(attrs: AuthorizationAttributes): AuthorizationResult {
    const id = nodeIdentity(attrs.user);
    if (id === undefined) return NONE;
    const { nodeName } = id;
    if (nodeName === '') return noOpinion(`unknown node for user ${JSON.stringify(attrs.user.name)}`);
    if (attrs.isResourceRequest) {
      const group = attrs.apiGroup;
      const resource = attrs.resource;
      if (group === '') {
        switch (resource) {
          case 'secrets':
            return this.#readNamespaced(nodeName, 'secret', attrs);
          case 'configmaps':
            return this.#readNamespaced(nodeName, 'configmap', attrs);
          case 'persistentvolumeclaims':
            return attrs.subresource === 'status' ? this.#statusUpdate(nodeName, 'pvc', attrs) : this.#get(nodeName, 'pvc', attrs);
          case 'persistentvolumes':
            return this.#get(nodeName, 'pv', attrs);
          case 'serviceaccounts':
            return this.#createToken(nodeName, attrs);
        }
      } else if (group === this.#groups.storage && resource === 'volumeattachments') {
        return this.#get(nodeName, 'volumeattachment', attrs);
      } else if (group === this.#groups.coordination && resource === 'leases') {
        return this.#lease(nodeName, attrs);
      } else if (group === this.#groups.storage && resource === 'csinodes') {
        return this.#csiNode(nodeName, attrs);
      }
    }
    return rulesAllow(attrs, this.#rules) ? ALLOW : NONE;
  }

  /** Nodes' permissions depend on the graph: they cannot be listed (the original says the same). */
  rulesFor(user: UserInfo): RulesResult {
    if (nodeIdentity(user) !== undefined) {
      return { resourceRules: [], nonResourceRules: [], incomplete: true, evaluationError: 'node authorizer does not support user rule resolution' };
    }
    return { resourceRules: [], nonResourceRules: [], incomplete: false };
  }

  #statusUpdate(nodeName: string, type: VertexType, attrs: AuthorizationAttributes): AuthorizationResult {
    if (attrs.verb !== 'update' && attrs.verb !== 'patch') return noOpinion('can only get/update/patch this type');
    if (attrs.subresource !== 'status') return noOpinion('can only update status subresource');
    return this.#reachable(nodeName, type, attrs);
  }

  #get(nodeName: string, type: VertexType, attrs: AuthorizationAttributes): AuthorizationResult {
    if (attrs.verb !== 'get') return noOpinion('can only get individual resources of this type');
    if (attrs.subresource !== '') return noOpinion('cannot get subresource');
    return this.#reachable(nodeName, type, attrs);
  }

  #readNamespaced(nodeName: string, type: VertexType, attrs: AuthorizationAttributes): AuthorizationResult {
    if (attrs.verb !== 'get' && attrs.verb !== 'list' && attrs.verb !== 'watch') return noOpinion('can only read resources of this type');
    if (attrs.subresource !== '') return noOpinion('cannot read subresource');
    if (attrs.namespace === '') return noOpinion('can only read namespaced object of this type');
    return this.#reachable(nodeName, type, attrs);
  }

  #createToken(nodeName: string, attrs: AuthorizationAttributes): AuthorizationResult {
    if (attrs.verb !== 'create' || attrs.name === '') return noOpinion('can only create tokens for individual service accounts');
    if (attrs.subresource !== 'token') return noOpinion('can only create token subresource of serviceaccount');
    return this.#reachable(nodeName, 'serviceaccount', attrs);
  }

  #lease(nodeName: string, attrs: AuthorizationAttributes): AuthorizationResult {
    const verb = attrs.verb;
    if (!['get', 'create', 'update', 'patch', 'delete'].includes(verb)) return noOpinion('can only get, create, update, patch, or delete a node lease');
    if (attrs.namespace !== names.nodeLeaseNamespace) return noOpinion(`can only access leases in the ${JSON.stringify(names.nodeLeaseNamespace)} system namespace`);
    // A create names no object here; admission (NodeRestriction) checks the name.
    if (verb !== 'create' && attrs.name !== nodeName) return noOpinion('can only access node lease with the same name as the requesting node');
    return ALLOW;
  }

  #csiNode(nodeName: string, attrs: AuthorizationAttributes): AuthorizationResult {
    const verb = attrs.verb;
    if (!['get', 'create', 'update', 'patch', 'delete'].includes(verb)) return noOpinion('can only get, create, update, patch, or delete a CSINode');
    if (attrs.subresource !== '') return noOpinion('cannot authorize CSINode subresources');
    if (verb !== 'create' && attrs.name !== nodeName) return noOpinion('can only access CSINode with the same name as the requesting node');
    return ALLOW;
  }

  #reachable(nodeName: string, type: VertexType, attrs: AuthorizationAttributes): AuthorizationResult {
    if (attrs.name === '') return noOpinion('No Object name found');
    if (!this.#graph.hasPathFrom(nodeName, type, attrs.namespace, attrs.name)) {
      return noOpinion(`no relationship found between node '${nodeName}' and this object`);
    }
    return ALLOW;
  }
}
