/**
 * The same RBAC checks in the kubernetes flavor (`rbac.authorization.k8s.io`,
 * `rbac.authorization.kubernetes.io/autoupdate`, `kube-system`): the flavor is
 * fixed before the server's modules load, then server.test.ts's suites run.
 */
import '../../support/kubernetes-flavor.ts';
import { names } from '../../../src/naming/index.ts';
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { AUTOUPDATE_ANNOTATION } from '../../../src/authz/rbac/bootstrap-policy.ts';

it('runs in the kubernetes flavor, with the original\'s annotation', () => {
  assert.equal(names.flavor, 'kubernetes');
  assert.equal(AUTOUPDATE_ANNOTATION, 'rbac.authorization.kubernetes.io/autoupdate');
});

await import('./server.test.ts');
