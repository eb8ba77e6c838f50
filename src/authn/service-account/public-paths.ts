/**
 * Lets requests without any credential read the issuer discovery documents
 * even when anonymous access is off (the default with AlwaysAllow), so an
 * external verifier can fetch them. The original serves them to
 * system:anonymous only when anonymous auth is on and RBAC's
 * `system:service-account-issuer-discovery` binding allows it; with no RBAC
 * here, they are public documents: a GET or HEAD of exactly these paths that
 * carries no credential becomes system:anonymous. A request that does carry a
 * credential is judged as usual (a bad token is still a 401).
 */
import type { ApiRequest } from '../../server/http.ts';
import type { AuthResult, Authenticator } from '../types.ts';
import { AnonymousAuthenticator } from '../anonymous.ts';

export class PublicPathsAuthenticator implements Authenticator {
  readonly name: string;
  readonly #anonymous = new AnonymousAuthenticator();

  constructor(
    private readonly inner: Authenticator,
    private readonly paths: ReadonlySet<string>,
  ) {
    this.name = inner.name;
  }

  async authenticate(req: ApiRequest): Promise<AuthResult> {
    const result = await this.inner.authenticate(req);
    if (result.kind !== 'none') return result;
    if ((req.method === 'GET' || req.method === 'HEAD') && this.paths.has(req.path)) return this.#anonymous.authenticate();
    return result;
  }
}
