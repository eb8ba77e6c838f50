/**
 * The kubernetes flavor (issue 10, items 2 and 4): the whole API under the
 * original's names, so programs with those names compiled in run unchanged:
 * kubectl's typed commands, @kubernetes/client-node's typed APIs for
 * non-core groups, and a leader election of two clients on one Lease.
 */
import '../support/kubernetes-flavor.ts';
import assert from 'node:assert/strict';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import * as k8s from '@kubernetes/client-node';
import { API_FLAVOR, names } from '../../src/naming/index.ts';
import { startTestServer, type TestServer } from '../support/test-server.ts';
import { scratchDir } from '../support/scratch-dir.ts';

const ORCH = /orch/i;

/** Every file under dir, recursively. */
async function filesUnder(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const e of await readdir(dir, { withFileTypes: true })) {
    const full = path.join(dir, e.name);
    if (e.isDirectory()) out.push(...(await filesUnder(full)));
    else out.push(full);
  }
  return out;
}

function statusCode(err: unknown): number | undefined {
  return (err as { code?: number }).code;
}

describe('the kubernetes API flavor', () => {
  let t: TestServer;
  let kc: k8s.KubeConfig;
  before(async () => {
    t = await startTestServer();
    kc = new k8s.KubeConfig();
    kc.loadFromFile(t.kubeconfig);
  });
  after(async () => {
    await t?.stop();
  });

  it('is fixed for this process by the test support import', () => {
    assert.equal(API_FLAVOR, 'kubernetes');
    assert.equal(names.apiGroupSuffix, 'k8s.io');
  });

  it('serves discovery and OpenAPI without an orch name, under the original schema names', async () => {
    const docs = ['/version', '/api', '/api/v1', '/apis', '/openapi/v2', '/openapi/v3'];
    const groups = (await t.request('GET', '/apis')).json<{ groups: Array<{ name: string; versions: Array<{ groupVersion: string }> }> }>();
    for (const g of groups.groups) for (const v of g.versions) docs.push(`/apis/${v.groupVersion}`);
    const v3 = (await t.request('GET', '/openapi/v3')).json<{ paths: Record<string, unknown> }>();
    docs.push(...Object.keys(v3.paths).map((p) => `/openapi/v3/${p}`));
    for (const doc of docs) {
      const r = await t.request('GET', doc);
      assert.equal(r.status, 200, doc);
      assert.doesNotMatch(r.body, ORCH, doc);
    }
    const aggregated = await t.request('GET', '/apis', undefined, { headers: { accept: 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList' } });
    assert.equal(aggregated.status, 200);
    assert.doesNotMatch(aggregated.body, ORCH);
    const groupNames = groups.groups.map((g) => g.name);
    for (const g of ['rbac.authorization.k8s.io', 'coordination.k8s.io', 'events.k8s.io', 'networking.k8s.io', 'scheduling.k8s.io']) assert.ok(groupNames.includes(g), g);

    const swagger = (await t.request('GET', '/openapi/v2')).json<{ info: { title: string }; definitions: Record<string, unknown>; paths: Record<string, { get?: { operationId: string } }> }>();
    assert.equal(swagger.info.title, 'Kubernetes');
    assert.equal(swagger.paths['/apis/rbac.authorization.k8s.io/v1/clusterroles']?.get?.operationId, 'listRbacAuthorizationV1ClusterRole');
    assert.equal((await t.request('GET', '/version')).json<{ gitVersion: string }>().gitVersion, 'v1.32.0');
    for (const name of [
      'io.k8s.api.core.v1.Pod',
      'io.k8s.api.rbac.v1.ClusterRole',
      'io.k8s.api.coordination.v1.Lease',
      'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta',
      'io.k8s.apimachinery.pkg.api.resource.Quantity',
      'io.k8s.apimachinery.pkg.util.intstr.IntOrString',
    ]) {
      assert.ok(swagger.definitions[name], name);
    }
  });

  it('answers Status details, Tables and Protobuf in the original names only', async () => {
    const missing = await t.request('GET', '/apis/rbac.authorization.k8s.io/v1/clusterroles/absent');
    assert.equal(missing.status, 404);
    assert.equal(missing.json<{ details: { group: string } }>().details.group, 'rbac.authorization.k8s.io');
    assert.doesNotMatch(missing.body, ORCH);
    const noManager = await t.request('PATCH', '/api/v1/namespaces/default/configmaps/x', { apiVersion: 'v1', kind: 'ConfigMap' }, { headers: { 'content-type': 'application/apply-patch+yaml' } });
    assert.equal(noManager.status, 422);
    assert.match(noManager.body, /PatchOptions\.meta\.k8s\.io/);
    assert.doesNotMatch(noManager.body, ORCH);
    // The spec's group names are not served here.
    assert.equal((await t.request('GET', '/apis/rbac.authorization.orch.io/v1/clusterroles')).status, 404);

    const table = await t.request('GET', '/api/v1/namespaces', undefined, { headers: { accept: 'application/json;as=Table;g=meta.k8s.io;v=v1' } });
    assert.equal(table.json<{ apiVersion: string }>().apiVersion, 'meta.k8s.io/v1');
    const rows = table.json<{ rows: Array<{ cells: unknown[] }> }>().rows.map((r) => r.cells[0]);
    assert.deepEqual(rows, ['default', 'kube-node-lease', 'kube-public', 'kube-system']);
    const orchTable = await t.request('GET', '/api/v1/namespaces', undefined, { headers: { accept: 'application/json;as=Table;g=meta.orch.io;v=v1' } });
    assert.equal(orchTable.status, 406);

    const pb = await t.request('GET', '/api/v1/namespaces/default', undefined, { headers: { accept: 'application/vnd.kubernetes.protobuf' } });
    assert.equal(pb.status, 200);
    assert.match(String(pb.headers['content-type']), /^application\/vnd\.kubernetes\.protobuf/);
    const orchPb = await t.request('GET', '/api/v1/namespaces/default', undefined, { headers: { accept: 'application/vnd.orch.protobuf' } });
    assert.equal(orchPb.status, 406);
    const ns = await t.request('GET', '/api/v1/namespaces/default');
    assert.deepEqual(ns.json<{ spec: { finalizers: string[] } }>().spec.finalizers, ['kubernetes']);
  });

  it('ends the initial events of a watch with the original annotation (client-go WatchList)', async () => {
    const w = await t.watch('/api/v1/namespaces?watch=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&resourceVersion=0&allowWatchBookmarks=true');
    try {
      await w.until(() => w.events.some((e) => e.type === 'BOOKMARK'), 'the initial-events bookmark');
      const bookmark = w.events.find((e) => e.type === 'BOOKMARK');
      assert.deepEqual(bookmark?.object.metadata.annotations, { 'k8s.io/initial-events-end': 'true' });
    } finally {
      w.close();
    }
  });

  it("runs kubectl's typed commands", async () => {
    const run = async (args: string[], input?: string): Promise<string> => {
      const r = await t.kubectl(args, input === undefined ? {} : { input });
      assert.equal(r.code, 0, `kubectl ${args.join(' ')}: ${r.stderr}`);
      return r.stdout;
    };
    assert.match(await run(['create', 'role', 'pod-reader', '--verb=get,list', '--resource=pods']), /role\.rbac\.authorization\.k8s\.io\/pod-reader created/);
    assert.match(await run(['create', 'rolebinding', 'read-pods', '--role=pod-reader', '--user=alice']), /rolebinding\.rbac\.authorization\.k8s\.io\/read-pods created/);
    assert.match(await run(['create', 'clusterrole', 'node-reader', '--verb=get', '--resource=nodes']), /clusterrole\.rbac\.authorization\.k8s\.io\/node-reader created/);
    assert.match(await run(['create', 'cronjob', 'tick', '--image=busybox', '--schedule=*/5 * * * *']), /cronjob\.batch\/tick created/);
    assert.match(await run(['create', 'job', 'tick-now', '--from=cronjob/tick']), /job\.batch\/tick-now created/);
    assert.match(await run(['create', 'poddisruptionbudget', 'web', '--selector=app=web', '--min-available=1']), /poddisruptionbudget\.policy\/web created/);
    assert.match(await run(['create', 'priorityclass', 'high', '--value=1000']), /priorityclass\.scheduling\.k8s\.io\/high created/);
    assert.match(await run(['create', 'quota', 'pods', '--hard=pods=10']), /resourcequota\/pods created/);

    const job = JSON.parse(await run(['get', 'job', 'tick-now', '-o', 'json'])) as { metadata: { annotations: Record<string, string>; ownerReferences: Array<{ kind: string }> } };
    assert.equal(job.metadata.annotations['cronjob.kubernetes.io/instantiate'], 'manual');
    assert.equal(job.metadata.ownerReferences[0]?.kind, 'CronJob');
    const role = JSON.parse(await run(['get', 'role', 'pod-reader', '-o', 'json'])) as { apiVersion: string };
    assert.equal(role.apiVersion, 'rbac.authorization.k8s.io/v1');
    const listed = await run(['get', 'roles,rolebindings,cronjobs,jobs,pdb,priorityclasses,quota']);
    for (const name of ['role.rbac.authorization.k8s.io/pod-reader', 'rolebinding.rbac.authorization.k8s.io/read-pods', 'cronjob.batch/tick', 'poddisruptionbudget.policy/web', 'priorityclass.scheduling.k8s.io/high']) {
      assert.match(listed, new RegExp(name.replace(/\./g, '\\.')));
    }
  });

  // kubectl sends fieldValidation=Strict: IngressRule's inline IngressRuleValue (`http`) must be a known field.
  it('runs kubectl create ingress', async () => {
    const r = await t.kubectl(['create', 'ingress', 'web', '--rule=example.com/=web:8080']);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /ingress\.networking\.k8s\.io\/web created/);
    assert.match((await t.kubectl(['get', 'ingress'])).stdout, /web/);
  });

  it('cordons a node', async () => {
    const node = { apiVersion: 'v1', kind: 'Node', metadata: { name: 'worker-1' } };
    assert.equal((await t.request('POST', '/api/v1/nodes', node)).status, 201);
    const pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'on-worker' }, spec: { nodeName: 'worker-1', containers: [{ name: 'c', image: 'busybox' }] } };
    assert.equal((await t.request('POST', '/api/v1/namespaces/default/pods', pod)).status, 201);
    const cordon = await t.kubectl(['cordon', 'worker-1']);
    assert.equal(cordon.code, 0, cordon.stderr);
    assert.match(cordon.stdout, /node\/worker-1 cordoned/);
    const read = (await t.request('GET', '/api/v1/nodes/worker-1')).json<{ spec: { unschedulable?: boolean } }>();
    assert.equal(read.spec.unschedulable, true);
  });

  // kubectl drain evicts through pods/eviction, which discovery lists.
  it('drains a node with a server-side dry run', async () => {
    const drain = await t.kubectl(['drain', 'worker-1', '--dry-run=server', '--force', '--ignore-daemonsets']);
    assert.equal(drain.code, 0, drain.stderr);
    assert.match(drain.stdout, /evicting pod default\/on-worker \(server dry run\)/);
    assert.match(drain.stdout, /node\/worker-1 drained \(server dry run\)/);
    // A dry run: the pod is still there.
    assert.equal((await t.request('GET', '/api/v1/namespaces/default/pods/on-worker')).status, 200);
  });

  it('binds a pod to a node through pods/binding, as kube-scheduler does (client-node)', async () => {
    const core = kc.makeApiClient(k8s.CoreV1Api);
    await core.createNode({ body: { metadata: { name: 'bind-target' } } });
    await core.createNamespacedPod({ namespace: 'default', body: { metadata: { name: 'to-bind' }, spec: { containers: [{ name: 'c', image: 'busybox' }] } } });
    await core.createNamespacedPodBinding({ name: 'to-bind', namespace: 'default', body: { metadata: { name: 'to-bind' }, target: { apiVersion: 'v1', kind: 'Node', name: 'bind-target' } } });
    const pod = await core.readNamespacedPod({ name: 'to-bind', namespace: 'default' });
    assert.equal(pod.spec?.nodeName, 'bind-target');
    assert.equal(pod.status?.conditions?.find((c) => c.type === 'PodScheduled')?.status, 'True');
    await assert.rejects(
      core.createNamespacedPodBinding({ name: 'to-bind', namespace: 'default', body: { metadata: { name: 'to-bind' }, target: { apiVersion: 'v1', kind: 'Node', name: 'bind-target' } } }),
      (err: unknown) => statusCode(err) === 409,
    );
  });

  it('serves client-node typed APIs of non-core groups, and kubectl get events', async () => {
    const rbac = kc.makeApiClient(k8s.RbacAuthorizationV1Api);
    const events = kc.makeApiClient(k8s.EventsV1Api);
    const coordination = kc.makeApiClient(k8s.CoordinationV1Api);

    const role = await rbac.createClusterRole({ body: { metadata: { name: 'lease-editor' }, rules: [{ apiGroups: ['coordination.k8s.io'], resources: ['leases'], verbs: ['get', 'update'] }] } });
    assert.equal(role.apiVersion, 'rbac.authorization.k8s.io/v1');
    await rbac.createNamespacedRoleBinding({
      namespace: 'default',
      body: { metadata: { name: 'edit-leases' }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'lease-editor' }, subjects: [{ kind: 'User', name: 'bob', apiGroup: 'rbac.authorization.k8s.io' }] },
    });
    const bindings = await rbac.listNamespacedRoleBinding({ namespace: 'default' });
    assert.ok(bindings.items.some((b) => b.metadata?.name === 'edit-leases'));

    const lease = await coordination.createNamespacedLease({ namespace: 'default', body: { metadata: { name: 'typed' }, spec: { holderIdentity: 'a', leaseDurationSeconds: 15 } } });
    assert.equal(lease.spec?.holderIdentity, 'a');
    const leases = await coordination.listNamespacedLease({ namespace: 'default' });
    assert.ok(leases.items.some((l) => l.metadata?.name === 'typed'));
    const nodeLeases = await coordination.listNamespacedLease({ namespace: 'kube-node-lease' });
    assert.deepEqual(nodeLeases.items, []);

    const created = await events.createNamespacedEvent({
      namespace: 'default',
      body: {
        metadata: { name: 'started.1' },
        eventTime: new k8s.V1MicroTime(),
        reportingController: 'kubernetes.io/test-controller',
        reportingInstance: 'test-1',
        action: 'Start',
        reason: 'Started',
        type: 'Normal',
        note: 'started the test',
        regarding: { apiVersion: 'v1', kind: 'Node', name: 'worker-1' },
      },
    });
    assert.equal(created.apiVersion, 'events.k8s.io/v1');
    const listedEvents = await events.listNamespacedEvent({ namespace: 'default' });
    assert.ok(listedEvents.items.some((e) => e.note === 'started the test'));
    const got = await t.kubectl(['get', 'events']);
    assert.equal(got.code, 0, got.stderr);
    assert.match(got.stdout, /Started/);
    assert.match(got.stdout, /started the test/);
  });

  it('elects one leader among two clients on one Lease, and hands over on release', async () => {
    const client = (): k8s.CoordinationV1Api => kc.makeApiClient(k8s.CoordinationV1Api);
    const a = new LeaseElector(client(), 'candidate-a');
    const b = new LeaseElector(client(), 'candidate-b');
    const now = Date.now();

    // Both try to create the lease at once: exactly one wins.
    const first = await Promise.all([a.tryAcquireOrRenew(now), b.tryAcquireOrRenew(now)]);
    assert.equal(first.filter(Boolean).length, 1, `one leader, got ${JSON.stringify(first)}`);
    const [leader, follower] = first[0] ? [a, b] : [b, a];
    assert.equal(await leader.tryAcquireOrRenew(now + 1000), true, 'the leader renews');
    assert.equal(await follower.tryAcquireOrRenew(now + 1000), false, 'the follower waits while the lease is held');
    assert.equal((await leader.read()).spec?.holderIdentity, leader.identity);

    // Seen as expired by both at once: both update from the same resourceVersion, one wins.
    const later = now + 60_000;
    const second = await Promise.all([a.tryAcquireOrRenew(later), b.tryAcquireOrRenew(later)]);
    assert.equal(second.filter(Boolean).length, 1, `one leader, got ${JSON.stringify(second)}`);

    const current = second[0] ? a : b;
    const other = current === a ? b : a;
    await current.release();
    assert.equal(await other.tryAcquireOrRenew(later + 1000), true, 'the released lease is taken at once');
    const final = await other.read();
    assert.equal(final.spec?.holderIdentity, other.identity);
    assert.ok((final.spec?.leaseTransitions ?? 0) >= 1);
  });
});

/**
 * The original's leader election on a Lease (client-go tools/leaderelection
 * with resourcelock.LeaseLock): get, create if absent, take over only an
 * expired or released lease, every write conditioned on the resourceVersion
 * read. `now` is passed in so the test needs no clock.
 */
class LeaseElector {
  static readonly NAME = 'election';
  static readonly NAMESPACE = 'kube-system';
  static readonly DURATION_SECONDS = 15;
  readonly #api: k8s.CoordinationV1Api;
  readonly identity: string;

  constructor(api: k8s.CoordinationV1Api, identity: string) {
    this.#api = api;
    this.identity = identity;
  }

  read(): Promise<k8s.V1Lease> {
    return this.#api.readNamespacedLease({ name: LeaseElector.NAME, namespace: LeaseElector.NAMESPACE });
  }

  async tryAcquireOrRenew(now: number): Promise<boolean> {
    const at = new k8s.V1MicroTime(now);
    let lease: k8s.V1Lease;
    try {
      lease = await this.read();
    } catch (err) {
      if (statusCode(err) !== 404) throw err;
      const spec: k8s.V1LeaseSpec = { holderIdentity: this.identity, leaseDurationSeconds: LeaseElector.DURATION_SECONDS, acquireTime: at, renewTime: at, leaseTransitions: 0 };
      return this.#write(() => this.#api.createNamespacedLease({ namespace: LeaseElector.NAMESPACE, body: { metadata: { name: LeaseElector.NAME }, spec } }));
    }
    const old = lease.spec ?? {};
    const holder = old.holderIdentity ?? '';
    const renewedAt = old.renewTime === undefined ? 0 : new Date(old.renewTime).getTime();
    const expired = renewedAt + (old.leaseDurationSeconds ?? 0) * 1000 < now;
    if (holder !== '' && holder !== this.identity && !expired) return false;
    const mine = holder === this.identity;
    lease.spec = {
      holderIdentity: this.identity,
      leaseDurationSeconds: LeaseElector.DURATION_SECONDS,
      acquireTime: mine && old.acquireTime !== undefined ? old.acquireTime : at,
      renewTime: at,
      leaseTransitions: (old.leaseTransitions ?? 0) + (mine ? 0 : 1),
    };
    return this.#write(() => this.#api.replaceNamespacedLease({ name: LeaseElector.NAME, namespace: LeaseElector.NAMESPACE, body: lease }));
  }

  /** ReleaseOnCancel: an empty holder, so another candidate need not wait for expiry. */
  async release(): Promise<void> {
    const lease = await this.read();
    if (lease.spec?.holderIdentity !== this.identity) return;
    const at = new k8s.V1MicroTime();
    lease.spec = { holderIdentity: '', leaseDurationSeconds: 1, acquireTime: at, renewTime: at, leaseTransitions: lease.spec.leaseTransitions ?? 0 };
    await this.#api.replaceNamespacedLease({ name: LeaseElector.NAME, namespace: LeaseElector.NAMESPACE, body: lease });
  }

  /** A lost race (409 AlreadyExists or Conflict) is a lost election, not an error. */
  async #write(op: () => Promise<unknown>): Promise<boolean> {
    try {
      await op();
      return true;
    } catch (err) {
      if (statusCode(err) === 409) return false;
      throw err;
    }
  }
}

describe('the kubernetes flavor stores the original names', () => {
  it('leaves no orch name in the embedded store, and records its flavor', async () => {
    const dataDir = await scratchDir('orch-kube-flavor-');
    const t = await startTestServer([], { dataDir });
    try {
      const secret = { apiVersion: 'v1', kind: 'Secret', metadata: { name: 's' }, type: 'kubernetes.io/basic-auth', stringData: { username: 'u' } };
      assert.equal((await t.request('POST', '/api/v1/namespaces/default/secrets', secret)).status, 201);
      assert.equal((await t.kubectl(['create', 'clusterrole', 'stored', '--verb=get', '--resource=pods'])).code, 0);
      assert.equal((await t.kubectl(['create', 'namespace', 'team-a'])).code, 0);
    } finally {
      await t.stop();
    }
    assert.equal(await readFile(path.join(dataDir, 'api-flavor'), 'utf8'), 'kubernetes\n');
    const stored = await filesUnder(path.join(dataDir, 'store'));
    assert.ok(stored.length > 0);
    let sawRbac = false;
    for (const file of stored) {
      const bytes = (await readFile(file)).toString('latin1');
      assert.doesNotMatch(bytes, /orch\.io|orch-system|orch-public|orch-node-lease/, file);
      sawRbac ||= bytes.includes('rbac.authorization.k8s.io/v1');
    }
    assert.ok(sawRbac, 'the cluster role is stored under its original apiVersion');
  });
});
