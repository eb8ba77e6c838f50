/**
 * Whether a user may `approve` or `sign` for a signer, as the original's
 * certificates.IsAuthorizedForSignerName: the verb on the synthetic
 * `signers` resource of the certificates group, named by the signer name,
 * else by its domain wildcard (`<domain>/*`). An authorizer error counts as
 * a refusal.
 */
import type { Authorizer, AuthorizationAttributes } from '../../authz/types.ts';
import type { UserInfo } from '../../server/context.ts';
import { apiGroup } from '../../naming/index.ts';

function signerAttributes(user: UserInfo, verb: string, name: string): AuthorizationAttributes {
  return {
    user,
    verb,
    isResourceRequest: true,
    path: '',
    namespace: '',
    apiGroup: apiGroup('certificates'),
    apiVersion: '*',
    resource: 'signers',
    subresource: '',
    name,
  };
}

async function allowed(authz: Authorizer, attrs: AuthorizationAttributes): Promise<boolean> {
  try {
    return (await authz.authorize(attrs)).decision === 'allow';
  } catch {
    return false;
  }
}

export async function isAuthorizedForSignerName(authz: Authorizer, user: UserInfo, verb: 'approve' | 'sign', signerName: string): Promise<boolean> {
  if (await allowed(authz, signerAttributes(user, verb, signerName))) return true;
  const domain = signerName.split('/')[0] ?? '';
  return allowed(authz, signerAttributes(user, verb, `${domain}/*`));
}
