/**
 * The REST API against the real kubectl 1.32 and raw HTTPS, on a server
 * started from the quick-start defaults (embedded store, generated
 * credentials) on free loopback ports.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from '../support/test-server.ts';
import { SKIP_WITHOUT_UWS } from '../support/uws-toggle.ts';

type Obj = { metadata: { name: string; namespace?: string; uid?: string; resourceVersion?: string; creationTimestamp?: string; deletionTimestamp?: string; finalizers?: string[]; generation?: number }; [k: string]: unknown };

async function eventually(what: string, check: () => Promise<boolean>, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) assert.fail(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('REST API with kubectl', () => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer();
  });
  after(async () => {
    await t?.stop();
  });

  it('lists the system namespaces with kubectl get', async () => {
    const r = await t.kubectl(['get', 'namespaces', '-o', 'name']);
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(r.stdout.trim().split('\n').sort(), ['namespace/default', 'namespace/orch-node-lease', 'namespace/orch-public', 'namespace/orch-system']);
  });

  it('creates, reads, replaces and deletes objects from manifests', async () => {
    const manifest = `
apiVersion: v1
kind: Namespace
metadata: { name: shop }
---
apiVersion: v1
kind: ConfigMap
metadata: { name: settings, namespace: shop, labels: { app: shop } }
data: { color: blue }
---
apiVersion: v1
kind: Secret
metadata: { name: creds, namespace: shop }
stringData: { password: hunter2 }
---
apiVersion: v1
kind: ServiceAccount
metadata: { name: builder, namespace: shop }
---
apiVersion: v1
kind: Pod
metadata: { name: web, namespace: shop, labels: { app: shop } }
spec: { containers: [ { name: web, image: nginx } ] }
---
apiVersion: v1
kind: Service
metadata: { name: web, namespace: shop }
spec: { selector: { app: shop }, ports: [ { port: 80 } ] }
---
apiVersion: apps/v1
kind: Deployment
metadata: { name: web, namespace: shop }
spec:
  selector: { matchLabels: { app: shop } }
  template:
    metadata: { labels: { app: shop } }
    spec: { containers: [ { name: web, image: nginx:1.27 } ] }
`;
    const created = await t.kubectl(['create', '-f', '-'], { input: manifest });
    assert.equal(created.code, 0, created.stderr);
    assert.match(created.stdout, /deployment.apps\/web created/);

    const pod = JSON.parse((await t.kubectl(['-n', 'shop', 'get', 'pod', 'web', '-o', 'json'])).stdout) as Obj & { spec: { restartPolicy: string; containers: { imagePullPolicy: string }[] }; status: { phase: string } };
    assert.match(pod.metadata.uid!, /^[0-9a-f-]{36}$/);
    assert.match(pod.metadata.resourceVersion!, /^[0-9]+$/);
    assert.ok(pod.metadata.creationTimestamp);
    assert.equal(pod.spec.restartPolicy, 'Always', 'pod defaults applied');
    assert.equal(pod.spec.containers[0]!.imagePullPolicy, 'Always', 'image without tag pulls Always');
    assert.equal(pod.status.phase, 'Pending');

    const secret = JSON.parse((await t.kubectl(['-n', 'shop', 'get', 'secret', 'creds', '-o', 'json'])).stdout) as Obj & { data: Record<string, string>; type: string };
    assert.equal(Buffer.from(secret.data['password']!, 'base64').toString(), 'hunter2', 'stringData folded into data');
    assert.equal(secret.type, 'Opaque');

    const deploy = JSON.parse((await t.kubectl(['-n', 'shop', 'get', 'deploy', 'web', '-o', 'json'])).stdout) as Obj & { spec: { replicas: number; strategy: { type: string } } };
    assert.equal(deploy.spec.replicas, 1);
    assert.equal(deploy.spec.strategy.type, 'RollingUpdate');
    assert.equal(deploy.metadata.generation, 1);

    const described = await t.kubectl(['-n', 'shop', 'describe', 'configmap', 'settings']);
    assert.equal(described.code, 0, described.stderr);
    assert.match(described.stdout, /color/);

    const replaced = await t.kubectl(['replace', '-f', '-'], {
      input: 'apiVersion: v1\nkind: ConfigMap\nmetadata: { name: settings, namespace: shop }\ndata: { color: red }\n',
    });
    assert.equal(replaced.code, 0, replaced.stderr);
    const cm = JSON.parse((await t.kubectl(['-n', 'shop', 'get', 'cm', 'settings', '-o', 'json'])).stdout) as Obj & { data: Record<string, string> };
    assert.equal(cm.data['color'], 'red');

    const deleted = await t.kubectl(['-n', 'shop', 'delete', 'configmap', 'settings']);
    assert.equal(deleted.code, 0, deleted.stderr);
    const gone = await t.kubectl(['-n', 'shop', 'get', 'cm', 'settings']);
    assert.notEqual(gone.code, 0);
    assert.match(gone.stderr, /configmaps "settings" not found/);
  });

  it('patches with kubectl label, annotate, apply, patch and scale', async () => {
    const cm = 'apiVersion: v1\nkind: ConfigMap\nmetadata: { name: applied, namespace: default }\ndata: { a: "1", b: "2" }\n';
    const first = await t.kubectl(['apply', '-f', '-'], { input: cm });
    assert.equal(first.code, 0, first.stderr);
    assert.match(first.stdout, /configmap\/applied created/);
    const second = await t.kubectl(['apply', '-f', '-'], { input: cm.replace('b: "2"', 'c: "3"') });
    assert.equal(second.code, 0, second.stderr);
    assert.match(second.stdout, /configmap\/applied configured/);
    let got = JSON.parse((await t.kubectl(['get', 'cm', 'applied', '-o', 'json'])).stdout) as Obj & { data: Record<string, string>; metadata: { labels?: Record<string, string>; annotations?: Record<string, string> } };
    assert.deepEqual(got.data, { a: '1', c: '3' }, 'client-side apply removed b and added c');
    assert.ok(got.metadata.annotations?.['kubectl.kubernetes.io/last-applied-configuration']);

    assert.equal((await t.kubectl(['label', 'cm', 'applied', 'tier=web'])).code, 0);
    assert.equal((await t.kubectl(['annotate', 'cm', 'applied', 'note=hello'])).code, 0);
    const merge = await t.kubectl(['patch', 'cm', 'applied', '--type=merge', '-p', '{"data":{"d":"4"}}']);
    assert.equal(merge.code, 0, merge.stderr);
    const json = await t.kubectl(['patch', 'cm', 'applied', '--type=json', '-p', '[{"op":"remove","path":"/data/a"}]']);
    assert.equal(json.code, 0, json.stderr);
    got = JSON.parse((await t.kubectl(['get', 'cm', 'applied', '-o', 'json'])).stdout);
    assert.equal(got.metadata.labels?.['tier'], 'web');
    assert.equal(got.metadata.annotations?.['note'], 'hello');
    assert.deepEqual(got.data, { c: '3', d: '4' });
    const failing = await t.request('PATCH', '/api/v1/namespaces/default/configmaps/applied', [{ op: 'test', path: '/data/c', value: 'nope' }], { headers: { 'content-type': 'application/json-patch+json' } });
    assert.equal(failing.status, 422, 'a failing test op is 422');

    const dep = await t.kubectl(['create', '-f', '-'], {
      input: 'apiVersion: apps/v1\nkind: Deployment\nmetadata: { name: scaled, namespace: default }\nspec:\n  selector: { matchLabels: { app: scaled } }\n  template:\n    metadata: { labels: { app: scaled } }\n    spec: { containers: [ { name: c, image: nginx } ] }\n',
    });
    assert.equal(dep.code, 0, dep.stderr);
    const scaled = await t.kubectl(['scale', 'deployment', 'scaled', '--replicas=4']);
    assert.equal(scaled.code, 0, scaled.stderr);
    const replicas = await t.kubectl(['get', 'deploy', 'scaled', '-o', 'jsonpath={.spec.replicas}']);
    assert.equal(replicas.stdout, '4');
    const applyDep = await t.kubectl(['apply', '-f', '-'], {
      input: 'apiVersion: apps/v1\nkind: Deployment\nmetadata: { name: scaled, namespace: default }\nspec:\n  selector: { matchLabels: { app: scaled } }\n  template:\n    metadata: { labels: { app: scaled } }\n    spec: { containers: [ { name: c, image: nginx:1.27, env: [ { name: A, value: "1" } ] } ] }\n',
    });
    assert.equal(applyDep.code, 0, applyDep.stderr);
    const image = await t.kubectl(['get', 'deploy', 'scaled', '-o', 'jsonpath={.spec.template.spec.containers[0].image} {.spec.template.spec.containers[0].env[0].name}']);
    assert.equal(image.stdout, 'nginx:1.27 A', 'strategic merge patch by container name');
  });

  it('speaks protobuf with kubectl\'s typed commands and with raw clients', async () => {
    const ns = await t.kubectl(['create', 'namespace', 'typed']);
    assert.equal(ns.code, 0, ns.stderr);
    const cm = await t.kubectl(['-n', 'typed', 'create', 'configmap', 'pb', '--from-literal=k=v', '-o', 'json']);
    assert.equal(cm.code, 0, cm.stderr);
    assert.equal((JSON.parse(cm.stdout) as { data: Record<string, string> }).data['k'], 'v');
    const dep = await t.kubectl(['-n', 'typed', 'create', 'deployment', 'web', '--image=nginx:1.27', '--replicas=2']);
    assert.equal(dep.code, 0, dep.stderr);
    const run = await t.kubectl(['-n', 'typed', 'run', 'solo', '--image=busybox:1', '--labels=app=solo']);
    assert.equal(run.code, 0, run.stderr);
    const pod = (await t.request('GET', '/api/v1/namespaces/typed/pods/solo')).json<{ metadata: { labels: Record<string, string> }; spec: { containers: { image: string }[] } }>();
    assert.equal(pod.spec.containers[0]!.image, 'busybox:1');
    assert.equal(pod.metadata.labels['app'], 'solo');
    for (const media of ['application/vnd.orch.protobuf', 'application/vnd.kubernetes.protobuf']) {
      const raw = await t.request('GET', '/api/v1/namespaces/typed/configmaps/pb', undefined, { headers: { accept: media } });
      assert.equal(raw.status, 200);
      assert.equal(raw.headers['content-type'], media);
      assert.deepEqual([...Buffer.from(raw.body, 'latin1').subarray(0, 4)], [0x6b, 0x38, 0x73, 0x00], 'the protobuf envelope prefix');
    }
    const onlyYaml = await t.request('GET', '/api/v1/namespaces/typed/configmaps/pb', undefined, { headers: { accept: 'application/yaml' } });
    assert.equal(onlyYaml.status, 406);
    const del = await t.kubectl(['delete', 'namespace', 'typed', '--wait=false']);
    assert.equal(del.code, 0, del.stderr);
  });

  it('prints server-side tables: get, -o wide, --chunk-size and -w', async () => {
    await t.request('POST', '/api/v1/namespaces', { metadata: { name: 'tables' } });
    for (let i = 0; i < 5; i++) await t.request('POST', '/api/v1/namespaces/tables/configmaps', { metadata: { name: `t${i}` }, data: { a: '1', b: '2' } });
    const pod = await t.request('POST', '/api/v1/namespaces/tables/pods', { metadata: { name: 'p' }, spec: { nodeName: 'node-a', containers: [{ name: 'c', image: 'nginx' }] } });
    await t.request('PUT', '/api/v1/namespaces/tables/pods/p/status', { ...pod.json<object>(), status: { phase: 'Running', podIP: '10.0.0.7', containerStatuses: [{ name: 'c', ready: true, restartCount: 2, image: 'nginx', imageID: '', started: true, state: { running: {} } }] } });
    const pods = await t.kubectl(['-n', 'tables', 'get', 'pods']);
    assert.equal(pods.code, 0, pods.stderr);
    assert.match(pods.stdout, /^NAME\s+READY\s+STATUS\s+RESTARTS\s+AGE$/m);
    assert.match(pods.stdout, /^p\s+1\/1\s+Running\s+2\s+\d+s$/m);
    const wide = await t.kubectl(['-n', 'tables', 'get', 'pods', '-o', 'wide']);
    assert.match(wide.stdout, /^p\s+1\/1\s+Running\s+2\s+\S+\s+10\.0\.0\.7\s+node-a\s/m);
    const chunked = await t.kubectl(['-n', 'tables', 'get', 'configmaps', '--chunk-size=2', '-v=6']);
    assert.equal(chunked.code, 0, chunked.stderr);
    for (let i = 0; i < 5; i++) assert.match(chunked.stdout, new RegExp(`^t${i}\\s+2\\s`, 'm'));
    assert.ok((chunked.stderr.match(/limit=2/g) ?? []).length >= 3, 'kubectl paged with continue tokens');
    const ns = await t.kubectl(['get', 'namespace', 'tables']);
    assert.match(ns.stdout, /^tables\s+Active\s+\d+s$/m);

    // kubectl get -w: the current rows, then a row per change.
    const { spawn } = await import('node:child_process');
    const child = spawn('kubectl', ['--kubeconfig', t.kubeconfig, '-n', 'tables', 'get', 'configmaps', '-w'], { env: { ...process.env, HOME: t.dataDir } });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    const deadline = Date.now() + 15_000;
    while (!/^t4\s/m.test(out) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    await t.request('POST', '/api/v1/namespaces/tables/configmaps', { metadata: { name: 'watched-new' } });
    while (!/^watched-new\s/m.test(out) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    child.kill();
    assert.match(out, /^t0\s+2\s/m, 'initial rows');
    assert.match(out, /^watched-new\s+0\s/m, 'a row for the new object');
  });

  it('shows discovery to kubectl api-resources, api-versions and get --raw', async () => {
    const res = await t.kubectl(['api-resources', '--no-headers']);
    assert.equal(res.code, 0, res.stderr);
    assert.match(res.stdout, /^deployments\s+deploy\s+apps\/v1\s+true\s+Deployment$/m);
    assert.match(res.stdout, /^pods\s+po\s+v1\s+true\s+Pod$/m);
    assert.match(res.stdout, /^leases\s+coordination\.orch\.io\/v1\s+true\s+Lease$/m);
    const versions = await t.kubectl(['api-versions']);
    assert.match(versions.stdout, /^apps\/v1$/m);
    assert.match(versions.stdout, /^events\.orch\.io\/v1$/m);
    const raw = await t.kubectl(['get', '--raw', '/readyz?verbose']);
    assert.equal(raw.code, 0, raw.stderr);
    assert.match(raw.stdout, /\[\+\]shards ok/);
    assert.match(raw.stdout, /readyz check passed/);
    const version = JSON.parse((await t.kubectl(['get', '--raw', '/version'])).stdout) as { major: string; minor: string };
    assert.equal(version.major, '1');
  });

  it('serves the token kubeconfig on the uWS listener', { skip: SKIP_WITHOUT_UWS }, async () => {
    assert.ok(t.uwsPort !== null, 'uWS loads on this Node');
    const r = await t.kubectl(['get', 'ns', 'default', '-o', 'name'], { kubeconfig: t.tokenKubeconfig });
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout.trim(), 'namespace/default');
    const direct = await t.request('GET', '/api/v1/namespaces/default', undefined, { as: 'token', uws: true });
    assert.equal(direct.status, 200);
    assert.equal(direct.json<Obj>().metadata.name, 'default');
  });

  it('deletes a namespace: Terminating, its content removed, then gone', async () => {
    assert.equal((await t.request('POST', '/api/v1/namespaces', { metadata: { name: 'doomed' } })).status, 201);
    for (const name of ['a', 'b']) {
      assert.equal((await t.request('POST', '/api/v1/namespaces/doomed/configmaps', { metadata: { name }, data: { k: 'v' } })).status, 201);
    }
    // One object with a finalizer keeps the namespace Terminating until it is released.
    assert.equal((await t.request('POST', '/api/v1/namespaces/doomed/configmaps', { metadata: { name: 'held', finalizers: ['example.com/hold'] } })).status, 201);
    const del = await t.request('DELETE', '/api/v1/namespaces/doomed');
    assert.equal(del.status, 200);
    const ns = (await t.request('GET', '/api/v1/namespaces/doomed')).json<Obj & { status: { phase: string } }>();
    assert.ok(ns.metadata.deletionTimestamp, 'deletionTimestamp set');
    assert.equal(ns.status.phase, 'Terminating');
    const refused = await t.request('POST', '/api/v1/namespaces/doomed/configmaps', { metadata: { name: 'late' } });
    assert.equal(refused.status, 403);
    assert.match(refused.json<{ message: string }>().message, /because it is being terminated/);
    await eventually('plain configmaps deleted', async () => (await t.request('GET', '/api/v1/namespaces/doomed/configmaps/a')).status === 404);
    assert.equal((await t.request('GET', '/api/v1/namespaces/doomed')).status, 200, 'still waiting for the held object');
    // The controller deletes the namespace's objects one after another: 'a' may be gone before 'held' is marked.
    await eventually('held marked for deletion', async () => (await t.request('GET', '/api/v1/namespaces/doomed/configmaps/held')).json<Obj>().metadata.deletionTimestamp !== undefined);
    const held = (await t.request('GET', '/api/v1/namespaces/doomed/configmaps/held')).json<Obj>();
    assert.ok(held.metadata.deletionTimestamp);
    const released = await t.request('PUT', '/api/v1/namespaces/doomed/configmaps/held', { ...held, metadata: { ...held.metadata, finalizers: [] } });
    assert.equal(released.status, 200);
    await eventually('namespace gone', async () => (await t.request('GET', '/api/v1/namespaces/doomed')).status === 404);
    const missing = await t.request('POST', '/api/v1/namespaces/doomed/configmaps', { metadata: { name: 'x' } });
    assert.equal(missing.status, 404);
    assert.equal(missing.json<{ message: string }>().message, 'namespaces "doomed" not found');
  });

  it('holds deletion for finalizers and removes the object with the last one', async () => {
    const path = '/api/v1/namespaces/default/configmaps';
    assert.equal((await t.request('POST', path, { metadata: { name: 'fin', finalizers: ['a.example.com/x', 'b.example.com/y'] } })).status, 201);
    const del = await t.request('DELETE', `${path}/fin`);
    assert.equal(del.status, 200);
    const pending = del.json<Obj>();
    assert.ok(pending.metadata.deletionTimestamp, 'the answer is the object, now being deleted');
    let cur = (await t.request('GET', `${path}/fin`)).json<Obj>();
    const one = await t.request('PUT', `${path}/fin`, { ...cur, metadata: { ...cur.metadata, finalizers: ['b.example.com/y'] } });
    assert.equal(one.status, 200);
    assert.equal((await t.request('GET', `${path}/fin`)).status, 200, 'one finalizer left');
    cur = one.json<Obj>();
    const last = await t.request('PUT', `${path}/fin`, { ...cur, metadata: { ...cur.metadata, finalizers: [] } });
    assert.equal(last.status, 200);
    assert.equal((await t.request('GET', `${path}/fin`)).status, 404);
  });

  it('generates names, enforces resourceVersion preconditions and keeps status apart', async () => {
    const path = '/api/v1/namespaces/default/configmaps';
    const gen = await t.request('POST', path, { metadata: { generateName: 'job-' } });
    assert.equal(gen.status, 201);
    assert.match(gen.json<Obj>().metadata.name, /^job-[bcdfghjklmnpqrstvwxz2456789]{5}$/);

    const v1 = (await t.request('POST', path, { metadata: { name: 'cas' }, data: { n: '1' } })).json<Obj>();
    const v2 = await t.request('PUT', `${path}/cas`, { ...v1, data: { n: '2' } });
    assert.equal(v2.status, 200);
    const stale = await t.request('PUT', `${path}/cas`, { ...v1, data: { n: '3' } });
    assert.equal(stale.status, 409);
    assert.equal(stale.json<{ reason: string }>().reason, 'Conflict');
    const dup = await t.request('POST', path, { metadata: { name: 'cas' } });
    assert.equal(dup.status, 409);
    assert.equal(dup.json<{ reason: string }>().reason, 'AlreadyExists');
    // A PUT that changes nothing keeps the resourceVersion.
    const same = (await t.request('PUT', `${path}/cas`, v2.json<Obj>())).json<Obj>();
    assert.equal(same.metadata.resourceVersion, v2.json<Obj>().metadata.resourceVersion);

    const pods = '/api/v1/namespaces/default/pods';
    const pod = (await t.request('POST', pods, { metadata: { name: 'st' }, spec: { containers: [{ name: 'c', image: 'busybox:1' }] } })).json<Obj & { status: Record<string, unknown> }>();
    const viaMain = await t.request('PUT', `${pods}/st`, { ...pod, status: { phase: 'Running' } });
    assert.equal(viaMain.json<{ status: { phase: string } }>().status.phase, 'Pending', 'the main resource ignores status');
    const cur = viaMain.json<Obj & { spec: Record<string, unknown> }>();
    const viaStatus = await t.request('PUT', `${pods}/st/status`, { ...cur, spec: { ...cur.spec, nodeName: 'sneaky' }, status: { phase: 'Running' } });
    assert.equal(viaStatus.status, 200);
    const after = viaStatus.json<{ status: { phase: string }; spec: { nodeName?: string } }>();
    assert.equal(after.status.phase, 'Running');
    assert.equal(after.spec.nodeName, undefined, 'the status subresource ignores spec');
  });

  it('answers bad input with Status errors of the right code and reason', async () => {
    const path = '/api/v1/namespaces/default/configmaps';
    const cases: Array<{ what: string; method: string; path: string; body?: unknown; headers?: Record<string, string>; code: number; reason: string }> = [
      { what: 'malformed JSON', method: 'POST', path, body: '{"metadata":', code: 400, reason: 'BadRequest' },
      { what: 'wrong kind', method: 'POST', path, body: { kind: 'Secret', apiVersion: 'v1', metadata: { name: 'k' } }, code: 400, reason: 'BadRequest' },
      { what: 'wrong apiVersion', method: 'POST', path, body: { kind: 'ConfigMap', apiVersion: 'apps/v1', metadata: { name: 'k' } }, code: 400, reason: 'BadRequest' },
      { what: 'namespace mismatch', method: 'POST', path, body: { metadata: { name: 'k', namespace: 'other' } }, code: 400, reason: 'BadRequest' },
      { what: 'invalid name', method: 'POST', path, body: { metadata: { name: 'Not_Valid' } }, code: 422, reason: 'Invalid' },
      { what: 'missing name', method: 'POST', path, body: { metadata: {} }, code: 422, reason: 'Invalid' },
      { what: 'unknown resource', method: 'GET', path: '/api/v1/namespaces/default/widgets', code: 404, reason: 'NotFound' },
      { what: 'unknown group', method: 'GET', path: '/apis/nope.example.com/v1/things', code: 404, reason: 'NotFound' },
      { what: 'unsupported media type', method: 'POST', path, body: 'a: b', headers: { 'content-type': 'text/plain' }, code: 415, reason: 'UnsupportedMediaType' },
      { what: 'body over 3 MiB', method: 'POST', path, body: { metadata: { name: 'big' }, data: { x: 'y'.repeat(4 * 1024 * 1024) } }, code: 413, reason: 'RequestEntityTooLarge' },
      { what: 'bad dryRun (422 on CreateOptions, as the original)', method: 'POST', path: `${path}?dryRun=Some`, body: { metadata: { name: 'd' } }, code: 422, reason: 'Invalid' },
      { what: 'not found', method: 'GET', path: `${path}/nothing-here`, code: 404, reason: 'NotFound' },
      { what: 'bad label selector', method: 'GET', path: `${path}?labelSelector=a%20in%20(`, code: 400, reason: 'BadRequest' },
      { what: 'unsupported field selector', method: 'GET', path: `${path}?fieldSelector=spec.nodeName%3Dn1`, code: 400, reason: 'BadRequest' },
      { what: 'continue with a resourceVersion', method: 'GET', path: `${path}?continue=abc&resourceVersion=5`, code: 400, reason: 'BadRequest' },
      { what: 'resourceVersionMatch without resourceVersion', method: 'GET', path: `${path}?resourceVersionMatch=Exact`, code: 400, reason: 'BadRequest' },
      { what: 'forged continue token', method: 'GET', path: `${path}?limit=1&continue=eyJ2IjoxfQ.AAAA`, code: 400, reason: 'BadRequest' },
    ];
    for (const c of cases) {
      const r = await t.request(c.method, c.path, c.body, c.headers ? { headers: c.headers } : {});
      assert.equal(r.status, c.code, `${c.what}: ${r.body.slice(0, 300)}`);
      const status = r.json<{ kind: string; apiVersion: string; status: string; reason: string; code: number; message: string }>();
      assert.equal(status.kind, 'Status', c.what);
      assert.equal(status.apiVersion, 'v1', c.what);
      assert.equal(status.status, 'Failure', c.what);
      assert.equal(status.reason, c.reason, `${c.what}: ${status.message}`);
      assert.equal(status.code, c.code, c.what);
      assert.ok(status.message.length > 0, c.what);
    }
    // The server is still healthy after all that.
    assert.equal((await t.request('GET', '/livez')).status, 200);
  });

  it('authenticates clients: certificates, tokens, and nothing else', async () => {
    assert.equal((await t.request('GET', '/api/v1/namespaces', undefined, { as: 'admin' })).status, 200);
    assert.equal((await t.request('GET', '/api/v1/namespaces', undefined, { as: 'token' })).status, 200);
    const bad = await t.request('GET', '/api/v1/namespaces', undefined, { as: { token: 'not-a-real-token' } });
    assert.equal(bad.status, 401);
    assert.equal(bad.json<{ reason: string }>().reason, 'Unauthorized');
    // Anonymous is off with AlwaysAllow (as the original resets it).
    assert.equal((await t.request('GET', '/api/v1/namespaces', undefined, { as: 'none' })).status, 401);
  });

  it('serves events.orch.io/v1 events from the core events storage', async () => {
    const v1 = '/apis/events.orch.io/v1/namespaces/default/events';
    const event = {
      metadata: { name: 'boot.1' },
      eventTime: '2026-11-22T00:00:00.000000Z',
      type: 'Normal',
      reason: 'Started',
      action: 'Start',
      note: 'container started',
      regarding: { kind: 'Pod', namespace: 'default', name: 'web', apiVersion: 'v1' },
      reportingController: 'example.com/agent',
      reportingInstance: 'agent-1',
    };
    const created = await t.request('POST', v1, event);
    assert.equal(created.status, 201, created.body);
    assert.equal(created.json<{ apiVersion: string }>().apiVersion, 'events.orch.io/v1');
    assert.equal(created.json<{ note: string }>().note, 'container started');
    const core = (await t.request('GET', '/api/v1/namespaces/default/events/boot.1')).json<{ apiVersion: string; message: string; involvedObject: { name: string } }>();
    assert.equal(core.apiVersion, 'v1');
    assert.equal(core.message, 'container started', 'note is stored as message');
    assert.equal(core.involvedObject.name, 'web', 'regarding is stored as involvedObject');
    const listed = (await t.request('GET', v1)).json<{ items: Array<{ apiVersion?: string; regarding: { name: string } }> }>();
    assert.ok(listed.items.some((e) => e.regarding.name === 'web'));
    const missing = await t.request('POST', v1, { metadata: { name: 'bad' }, eventTime: '2026-11-22T00:00:00.000000Z' });
    assert.equal(missing.status, 422, 'spec 2.11: type, regarding, action, reason, reporting* are required');
    const deprecated = await t.request('POST', v1, { ...event, metadata: { name: 'old' }, deprecatedCount: 3 });
    assert.equal(deprecated.status, 422, 'deprecated fields are not permitted in new objects');
  });

  it('exports request metrics and health checks', async () => {
    assert.equal((await t.request('GET', '/api/v1/namespaces')).status, 200);
    const metrics = await t.request('GET', '/metrics');
    assert.equal(metrics.status, 200);
    assert.match(metrics.body, /apiserver_request_total\{[^}]*verb="LIST"[^}]*resource="namespaces"[^}]*code="200"[^}]*\} [1-9]/);
    assert.match(metrics.body, /apiserver_request_duration_seconds_bucket/);
    assert.match(metrics.body, /apiserver_storage_request_duration_seconds_count\{operation="list",type="\/namespaces"\} [1-9]/);
    assert.match(metrics.body, /apiserver_shard_queue_depth\{shard="1"\} \d+/);
    assert.match(metrics.body, /apiserver_registered_watchers\{group="",kind="Namespace"\} [1-9]/, 'the namespace controller watches namespaces');
    const one = await t.request('GET', '/livez/ping');
    assert.equal(one.status, 200);
    const excluded = await t.request('GET', '/readyz?verbose&exclude=shards');
    assert.match(excluded.body, /\[\+\]shards excluded: ok/);
  });
});
