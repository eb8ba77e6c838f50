import type { AuthorizationAttributes } from '../../src/authz/types.ts';

/** Attributes of a resource request, with overrides. */
export function attrs(overrides: Partial<AuthorizationAttributes> = {}): AuthorizationAttributes {
  return {
    user: { name: 'bob', groups: ['system:authenticated'] },
    verb: 'list',
    isResourceRequest: true,
    path: '/api/v1/namespaces/default/pods',
    namespace: 'default',
    apiGroup: '',
    apiVersion: 'v1',
    resource: 'pods',
    subresource: '',
    name: '',
    ...overrides,
  };
}
