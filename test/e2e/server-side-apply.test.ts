/**
 * Server-side apply over HTTP and with kubectl: field ownership recorded in
 * managedFields, conflicts (409 naming each field and manager), force,
 * shared ownership, giving up fields by omission, updates recorded as
 * Update, and the managedFields wipe rules.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from '../support/test-server.ts';

interface Entry {
  manager: string;
  operation: string;
  apiVersion: string;
  fieldsType: string;
  fieldsV1: Record<string, unknown>;
  time: string;
}
type Obj = { metadata: { name: string; resourceVersion: string; managedFields?: Entry[]; labels?: Record<string, string> }; data?: Record<string, string>; spec?: { replicas?: number } };

const APPLY = { 'content-type': 'application/apply-patch+yaml' };
const CM = '/api/v1/namespaces/default/configmaps';

describe('server-side apply', () => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer();
  });
  after(async () => {
    await t?.stop();
  });

  const apply = (name: string, body: string, manager: string, force = false) =>
    t.request('PATCH', `${CM}/${name}?fieldManager=${manager}${force ? '&force=true' : ''}`, body, { headers: APPLY });

  it('creates by apply and records an Apply entry in FieldsV1 form', async () => {
    const r = await apply('sa1', 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: sa1\ndata:\n  a: "1"\n', 'alice');
    assert.equal(r.status, 201, r.body);
    const mf = r.json<Obj>().metadata.managedFields!;
    assert.equal(mf.length, 1);
    assert.equal(mf[0]!.manager, 'alice');
    assert.equal(mf[0]!.operation, 'Apply');
    assert.equal(mf[0]!.apiVersion, 'v1');
    assert.equal(mf[0]!.fieldsType, 'FieldsV1');
    assert.deepEqual(mf[0]!.fieldsV1, { 'f:data': { 'f:a': {} } }, 'an Apply entry lists the applied leaves');
    assert.match(mf[0]!.time, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
  });

  it('conflicts on a field another manager set to a different value, naming field and manager; force takes it', async () => {
    const conflict = await apply('sa1', 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: sa1\ndata:\n  a: "2"\n', 'bob');
    assert.equal(conflict.status, 409);
    const status = conflict.json<{ reason: string; message: string; details: { causes: Array<{ reason: string; message: string; field: string }> } }>();
    assert.equal(status.reason, 'Conflict');
    assert.deepEqual(status.details.causes.map((c) => [c.reason, c.field]), [['FieldManagerConflict', '.data.a']]);
    assert.match(status.details.causes[0]!.message, /conflict with "alice"/);
    const forced = await apply('sa1', 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: sa1\ndata:\n  a: "2"\n', 'bob', true);
    assert.equal(forced.status, 200, forced.body);
    const obj = forced.json<Obj>();
    assert.equal(obj.data!['a'], '2');
    const managers = obj.metadata.managedFields!.map((e) => e.manager);
    assert.ok(managers.includes('bob'));
    assert.ok(!managers.includes('alice'), 'alice owned only data.a and lost it: her entry goes (rule 5)');
  });

  it('shares ownership of equal values; an applier that omits a field gives it up; unowned fields are removed', async () => {
    await apply('sa2', 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: sa2\ndata:\n  a: "1"\n  b: "1"\n', 'alice');
    const shared = await apply('sa2', 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: sa2\ndata:\n  a: "1"\n', 'bob');
    assert.equal(shared.status, 200, 'same value: no conflict');
    // alice stops applying b: nobody else owns it, so it is removed (rule 4); a stays (bob still owns it).
    const dropped = await apply('sa2', 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: sa2\ndata:\n  c: "1"\n', 'alice');
    assert.equal(dropped.status, 200, dropped.body);
    assert.deepEqual(dropped.json<Obj>().data, { a: '1', c: '1' });
    // a is bob's alone now: alice changing it conflicts with bob.
    const change = await apply('sa2', 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: sa2\ndata:\n  a: "9"\n  c: "1"\n', 'alice');
    assert.equal(change.status, 409);
    assert.match(change.body, /conflict with \\"bob\\"/);
  });

  it('records updates as Update entries that never conflict, and wipes managedFields with [{}] but not with []', async () => {
    const cur = (await t.request('GET', `${CM}/sa1`)).json<Obj>();
    const put = await t.request('PUT', `${CM}/sa1?fieldManager=carol`, { ...cur, data: { a: '3' } });
    assert.equal(put.status, 200, 'an update of a field others own never conflicts');
    const afterPut = put.json<Obj>();
    const carol = afterPut.metadata.managedFields!.find((e) => e.manager === 'carol')!;
    assert.equal(carol.operation, 'Update');
    assert.deepEqual(carol.fieldsV1, { 'f:data': { 'f:a': {} } });
    const noop = await t.request('PUT', `${CM}/sa1`, { ...afterPut, metadata: { ...afterPut.metadata, managedFields: [] } });
    assert.equal(noop.status, 200);
    assert.ok((noop.json<Obj>().metadata.managedFields ?? []).length > 0, '[] does nothing');
    const wiped = await t.request('PATCH', `${CM}/sa1`, { metadata: { managedFields: [{}] } }, { headers: { 'content-type': 'application/merge-patch+json' } });
    assert.equal(wiped.status, 200, wiped.body);
    const left = wiped.json<Obj>().metadata.managedFields ?? [];
    assert.ok(!left.some((e) => e.manager === 'bob' || e.manager === 'carol'), `[{}] wipes (left: ${JSON.stringify(left.map((e) => e.manager))})`);
  });

  it('rejects apply without a field manager, and force on other patch types', async () => {
    const noManager = await t.request('PATCH', `${CM}/sa1`, 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: sa1\n', { headers: APPLY });
    assert.equal(noManager.status, 422);
    assert.match(noManager.json<{ message: string }>().message, /fieldManager/);
    const force = await t.request('PATCH', `${CM}/sa1?force=true`, { data: {} }, { headers: { 'content-type': 'application/merge-patch+json' } });
    assert.equal(force.status, 422);
    const withManaged = await apply('sa1', 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: sa1\n  managedFields: [{manager: x}]\n', 'alice');
    assert.ok(withManaged.status === 400 || withManaged.status === 422, 'an applied config may not carry managedFields');
  });

  it('works with kubectl apply --server-side and --force-conflicts', async () => {
    const dep = 'apiVersion: apps/v1\nkind: Deployment\nmetadata: { name: ssa, namespace: default }\nspec:\n  replicas: 2\n  selector: { matchLabels: { app: ssa } }\n  template:\n    metadata: { labels: { app: ssa } }\n    spec: { containers: [ { name: c, image: nginx:1.27 } ] }\n';
    const first = await t.kubectl(['apply', '--server-side', '-f', '-'], { input: dep });
    assert.equal(first.code, 0, first.stderr);
    const mf = JSON.parse((await t.kubectl(['get', 'deploy', 'ssa', '-o', 'jsonpath={.metadata.managedFields}'])).stdout) as Entry[];
    assert.equal(mf[0]!.manager, 'kubectl');
    const containers = (((mf[0]!.fieldsV1['f:spec'] as Record<string, unknown>)['f:template'] as Record<string, unknown>)['f:spec'] as Record<string, unknown>)['f:containers'] as Record<string, unknown>;
    assert.ok('k:{"name":"c"}' in containers, 'containers are owned by key');
    const other = await t.kubectl(['apply', '--server-side', '--field-manager=ops', '-f', '-'], { input: dep.replace('replicas: 2', 'replicas: 5') });
    assert.notEqual(other.code, 0);
    assert.match(other.stderr, /conflict with "kubectl": \.spec\.replicas/);
    const forced = await t.kubectl(['apply', '--server-side', '--field-manager=ops', '--force-conflicts', '-f', '-'], { input: dep.replace('replicas: 2', 'replicas: 5') });
    assert.equal(forced.code, 0, forced.stderr);
    const rvBefore = (await t.kubectl(['get', 'deploy', 'ssa', '-o', 'jsonpath={.metadata.resourceVersion}'])).stdout;
    const again = await t.kubectl(['apply', '--server-side', '--field-manager=ops', '--force-conflicts', '-f', '-'], { input: dep.replace('replicas: 2', 'replicas: 5') });
    assert.equal(again.code, 0, again.stderr);
    const rvAfter = (await t.kubectl(['get', 'deploy', 'ssa', '-o', 'jsonpath={.metadata.resourceVersion}'])).stdout;
    assert.equal(rvAfter, rvBefore, 're-applying the same configuration writes nothing');
    assert.equal((await t.kubectl(['get', 'deploy', 'ssa', '-o', 'jsonpath={.spec.replicas}'])).stdout, '5');
    const dry = await t.request('PATCH', '/apis/apps/v1/namespaces/default/deployments/ssa?fieldManager=ops&dryRun=All', 'apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: ssa\nspec:\n  replicas: 7\n', { headers: APPLY });
    assert.equal(dry.status, 200, dry.body);
    assert.equal(dry.json<Obj>().spec!.replicas, 7);
    assert.equal((await t.kubectl(['get', 'deploy', 'ssa', '-o', 'jsonpath={.spec.replicas}'])).stdout, '5', 'dry-run apply stored nothing');
  });
});
