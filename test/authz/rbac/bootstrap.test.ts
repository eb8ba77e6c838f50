/**
 * The default policy at start, as the original's bootstrap: created on a
 * fresh data dir, restored on a restart where an administrator removed parts
 * of it, left alone where they set `autoupdate: "false"`, administrator
 * additions kept.
 */
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { startTestServer, type TestServer } from '../../support/test-server.ts';
import { apiGroup } from '../../../src/naming/index.ts';
import { AUTOUPDATE_ANNOTATION, BOOTSTRAPPING_LABEL } from '../../../src/authz/rbac/bootstrap-policy.ts';

const RBAC_PATH = `/apis/${apiGroup('rbac.authorization')}/v1`;
type Obj = { metadata: { annotations?: Record<string, string>; labels?: Record<string, string>; resourceVersion?: string }; rules?: unknown[]; subjects?: Array<{ name: string }> };

let t: TestServer | undefined;
let dataDir: string | undefined;
after(async () => {
  await t?.stop();
  if (dataDir !== undefined) await fs.rm(dataDir, { recursive: true, force: true });
});

async function get(path: string): Promise<Obj> {
  const r = await t!.request('GET', path);
  assert.equal(r.status, 200, `${path}: ${r.body}`);
  return r.json<Obj>();
}

async function put(path: string, obj: Obj): Promise<void> {
  const r = await t!.request('PUT', path, obj);
  assert.equal(r.status, 200, `${path}: ${r.body}`);
}

describe('default RBAC policy reconciliation', () => {
  it('creates the defaults, restores what was removed, respects autoupdate "false"', async () => {
    // Our own data dir: the test server removes only the ones it made, and this one must outlive a stop.
    dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'orch-rbac-boot-'));
    t = await startTestServer(['--authorization-mode=RBAC'], { dataDir });
    const discovery = await get(`${RBAC_PATH}/clusterroles/system:discovery`);
    assert.equal(discovery.metadata.annotations?.[AUTOUPDATE_ANNOTATION], 'true');
    assert.equal(discovery.metadata.labels?.[BOOTSTRAPPING_LABEL], 'rbac-defaults');
    const masters = await get(`${RBAC_PATH}/clusterrolebindings/cluster-admin`);
    assert.deepEqual(masters.subjects?.map((s) => s.name), ['system:masters']);

    // An administrator strips one role (autoupdate on), strips and pins another, trims a binding and adds to it.
    const basic = await get(`${RBAC_PATH}/clusterroles/system:basic-user`);
    basic.rules = [{ apiGroups: ['example.com'], resources: ['extras'], verbs: ['get'] }];
    await put(`${RBAC_PATH}/clusterroles/system:basic-user`, basic);
    discovery.rules = [];
    discovery.metadata.annotations = { ...discovery.metadata.annotations, [AUTOUPDATE_ANNOTATION]: 'false' };
    delete discovery.metadata.resourceVersion;
    await put(`${RBAC_PATH}/clusterroles/system:discovery`, discovery);
    const piv = await get(`${RBAC_PATH}/clusterrolebindings/system:public-info-viewer`);
    piv.subjects = [{ kind: 'Group', apiGroup: apiGroup('rbac.authorization'), name: 'extra-group' } as never];
    await put(`${RBAC_PATH}/clusterrolebindings/system:public-info-viewer`, piv);
    await t.request('DELETE', `${RBAC_PATH}/clusterroles/system:node-bootstrapper`);
    await t.stop();

    t = await startTestServer(['--authorization-mode=RBAC'], { dataDir });
    const basicAfter = await get(`${RBAC_PATH}/clusterroles/system:basic-user`);
    const text = JSON.stringify(basicAfter.rules);
    assert.match(text, /"extras"/, 'the administrator addition stays');
    assert.match(text, /"selfsubjectaccessreviews"/, 'the default rules are back');
    assert.deepEqual((await get(`${RBAC_PATH}/clusterroles/system:discovery`)).rules, [], 'autoupdate "false" is left alone');
    const pivAfter = await get(`${RBAC_PATH}/clusterrolebindings/system:public-info-viewer`);
    assert.deepEqual(pivAfter.subjects?.map((s) => s.name).sort(), ['extra-group', 'system:authenticated', 'system:unauthenticated']);
    await get(`${RBAC_PATH}/clusterroles/system:node-bootstrapper`);
    // With system:discovery emptied and pinned, an authenticated user without bindings loses /apis.
    const anonymousHealth = await t.request('GET', '/healthz', undefined, { as: 'none' });
    assert.equal(anonymousHealth.status, 200);
  });
});
