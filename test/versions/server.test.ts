/**
 * Versions on a running server: discovery lists the older versions after the
 * current one (preferred); a request to a deprecated version gets the
 * original's Warning and sets the deprecated-API gauge (its audit
 * annotations are checked on the request context); --runtime-config takes
 * versions out of discovery, OpenAPI and routing (404); --feature-gates
 * switch list chunking, remainingItemCount and /openapi/v3.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from '../support/test-server.ts';
import { apiGroup, names } from '../../src/naming/index.ts';
import { RequestContext } from '../../src/server/context.ts';
import { FakeRequest, FakeResponse } from '../server/fake-http.ts';
import { recordDeprecatedRequest } from '../../src/server/deprecated-requests.ts';
import { createMetrics } from '../../src/server/metrics.ts';
import { ResourceRegistry } from '../../src/registry/registry.ts';
import { builtinResourceTypes } from '../../src/registry/catalog/index.ts';

const fc = apiGroup('flowcontrol.apiserver');
const dsc = apiGroup('discovery');
const cronJob = (name: string, apiVersion: string): Record<string, unknown> => ({
  apiVersion, kind: 'CronJob', metadata: { name },
  spec: { schedule: '@hourly', jobTemplate: { spec: { template: { spec: { containers: [{ name: 'c', image: 'busybox' }], restartPolicy: 'Never' } } } } },
});

describe('versions on a default server', () => {
  let srv: TestServer;
  before(async () => {
    srv = await startTestServer();
  });
  after(async () => {
    await srv?.stop();
  });

  it('discovery: each group\'s current version first (preferred), the older ones after it', async () => {
    const batch = (await srv.request('GET', '/apis/batch')).json<{ versions: Array<{ version: string }>; preferredVersion: { version: string } }>();
    assert.deepEqual(batch.versions.map((v) => v.version), ['v1', 'v1beta1']);
    assert.equal(batch.preferredVersion.version, 'v1');
    const autoscaling = (await srv.request('GET', '/apis/autoscaling')).json<{ versions: Array<{ version: string }> }>();
    assert.deepEqual(autoscaling.versions.map((v) => v.version), ['v2', 'v1', 'v2beta2']);
    const flow = (await srv.request('GET', `/apis/${fc}`)).json<{ versions: Array<{ version: string }>; preferredVersion: { version: string } }>();
    assert.deepEqual(flow.versions.map((v) => v.version), ['v1beta2', 'v1beta1']);
    const res = (await srv.request('GET', '/apis/batch/v1beta1')).json<{ resources: Array<{ name: string; shortNames?: string[] }> }>();
    assert.deepEqual(res.resources.map((r) => r.name).sort(), ['cronjobs', 'cronjobs/status']);
    assert.deepEqual(res.resources.find((r) => r.name === 'cronjobs')?.shortNames, ['cj']);
  });

  it('a deprecated version answers with the original\'s Warning and sets apiserver_requested_deprecated_apis', async () => {
    const created = await srv.request('POST', '/apis/batch/v1beta1/namespaces/default/cronjobs', cronJob('dep', 'batch/v1beta1'));
    assert.equal(created.status, 201, created.body);
    assert.equal(created.headers['warning'], '299 - "batch/v1beta1 CronJob is deprecated in v1.21+, unavailable in v1.25+; use batch/v1 CronJob"');
    const current = await srv.request('GET', '/apis/batch/v1/namespaces/default/cronjobs/dep');
    assert.equal(current.headers['warning'], undefined);
    const status = await srv.request('GET', '/apis/batch/v1beta1/namespaces/default/cronjobs/dep/status');
    assert.equal(status.status, 200);
    const flow = await srv.request('GET', `/apis/${fc}/v1beta1/flowschemas`);
    assert.equal(flow.headers['warning'], `299 - "${fc}/v1beta1 FlowSchema is deprecated in v1.23+, unavailable in v1.26+; use ${fc}/v1beta2 FlowSchema"`);
    const metrics = (await srv.request('GET', '/metrics')).body;
    assert.match(metrics, /apiserver_requested_deprecated_apis\{group="batch",version="v1beta1",resource="cronjobs",subresource="",removed_release="1.25"\} 1/);
    assert.match(metrics, /apiserver_requested_deprecated_apis\{group="batch",version="v1beta1",resource="cronjobs",subresource="status",removed_release="1.25"\} 1/);
    assert.doesNotMatch(metrics, /apiserver_requested_deprecated_apis\{group="batch",version="v1",/);
    assert.match(metrics, /# HELP apiserver_request_total \[STABLE\] /);
  });

  it('a watch through an older version sees objects written through the current one in its shape', async () => {
    const w = await srv.watch(`/apis/${dsc}/v1beta1/namespaces/default/endpointslices?watch=1`);
    try {
      const body = { apiVersion: `${dsc}/v1`, kind: 'EndpointSlice', metadata: { name: 'w1' }, addressType: 'IPv4', endpoints: [{ addresses: ['10.1.1.1'], nodeName: 'n9', zone: 'z9' }] };
      assert.equal((await srv.request('POST', `/apis/${dsc}/v1/namespaces/default/endpointslices`, body)).status, 201);
      await w.until(() => w.events.some((e) => e.object.metadata.name === 'w1'), 'the ADDED event');
      const ev = w.events.find((e) => e.object.metadata.name === 'w1')! as unknown as { type: string; object: { apiVersion: string; endpoints: Array<{ topology: Record<string, string> }> } };
      assert.equal(ev.type, 'ADDED');
      assert.equal(ev.object.apiVersion, `${dsc}/v1beta1`);
      assert.deepEqual(ev.object.endpoints[0]!.topology, { [names.labels.topologyZone]: 'z9', [names.labels.hostname]: 'n9' });
    } finally {
      w.close();
    }
  });

  it('kubectl reads an older version by its full name and prints the deprecation warning', async () => {
    const r = await srv.kubectl(['get', 'cronjobs.v1beta1.batch', '-n', 'default', '-o', 'name']);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /cronjob\.batch\/dep/);
    assert.match(r.stderr, /Warning: batch\/v1beta1 CronJob is deprecated in v1\.21\+, unavailable in v1\.25\+; use batch\/v1 CronJob/);
    const explain = await srv.kubectl(['explain', 'cronjobs.spec.jobTemplate', '--api-version=batch/v1beta1']);
    assert.equal(explain.code, 0, explain.stderr);
    assert.match(explain.stdout, /GROUP:\s+batch\s+KIND:\s+CronJob\s+VERSION:\s+v1beta1/);
    const versions = await srv.kubectl(['api-versions']);
    for (const gv of ['batch/v1beta1', 'autoscaling/v2beta2', `${fc}/v1beta2`, 'policy/v1beta1']) assert.ok(versions.stdout.split('\n').includes(gv), gv);
  });

  it('server-side apply through an older version (its declared schema), read through the current one', async () => {
    const manifest = [
      `apiVersion: ${fc}/v1beta1`, 'kind: PriorityLevelConfiguration', 'metadata:', '  name: applied',
      'spec:', '  type: Limited', '  limited:', '    assuredConcurrencyShares: 7', '    limitResponse:', '      type: Reject', '',
    ].join('\n');
    const r = await srv.kubectl(['apply', '--server-side', '-f', '-'], { input: manifest });
    assert.equal(r.code, 0, r.stderr);
    const v1beta2 = (await srv.request('GET', `/apis/${fc}/v1beta2/prioritylevelconfigurations/applied`)).json<{ spec: { limited: Record<string, unknown> }; metadata: { managedFields: Array<{ apiVersion: string; manager: string }> } }>();
    assert.equal(v1beta2.spec.limited['assuredConcurrencyShares'], 7);
    assert.equal(v1beta2.spec.limited['lendablePercent'], 0, 'defaulted');
    assert.ok(v1beta2.metadata.managedFields.some((m) => m.apiVersion === `${fc}/v1beta1` && m.manager === 'kubectl'));
    const bad = await srv.request('POST', `/apis/${fc}/v1beta2/prioritylevelconfigurations`, {
      metadata: { name: 'bad' }, spec: { type: 'Limited', limited: { assuredConcurrencyShares: 1, limitResponse: { type: 'Queue', queuing: { queues: 4, handSize: 8, queueLengthLimit: 1 } } } },
    });
    assert.equal(bad.status, 422);
    assert.match(bad.body, /spec\.limited\.limitResponse\.queuing\.handSize: Invalid value: 8: should not be greater than queues \(4\)/);
  });

  it('the audit annotations of a deprecated request are on its context', () => {
    const registry = new ResourceRegistry(builtinResourceTypes);
    const rt = registry.lookup(dsc, 'v1beta1', 'endpointslices')!;
    const ctx = new RequestContext(new FakeRequest('GET', `/apis/${dsc}/v1beta1/endpointslices`), new FakeResponse());
    const info = { isResourceRequest: true, path: '', verb: 'list', apiPrefix: 'apis', apiGroup: dsc, apiVersion: 'v1beta1', namespace: '', resource: 'endpointslices', subresource: '', name: '', parts: [] };
    recordDeprecatedRequest(createMetrics({ defaultMetrics: false }), ctx, rt, info);
    assert.deepEqual([...ctx.auditAnnotations], [[names.annotations.deprecatedApi, 'true'], [names.annotations.removedRelease, '1.25']]);
  });
});

describe('--runtime-config and --feature-gates on a running server', () => {
  let srv: TestServer;
  before(async () => {
    srv = await startTestServer([`--runtime-config=batch/v1beta1=false,${fc}/v1beta1=false,${fc}/v1beta2=false`, '--feature-gates=APIListChunking=false,RemainingItemCount=false,OpenAPIV3=false']);
  });
  after(async () => {
    await srv?.stop();
  });

  it('a disabled version vanishes from discovery and OpenAPI and answers 404', async () => {
    const batch = (await srv.request('GET', '/apis/batch')).json<{ versions: Array<{ version: string }> }>();
    assert.deepEqual(batch.versions.map((v) => v.version), ['v1']);
    const groups = (await srv.request('GET', '/apis')).json<{ groups: Array<{ name: string }> }>();
    assert.ok(!groups.groups.some((g) => g.name === fc), 'a group with no version left is gone');
    assert.equal((await srv.request('GET', '/apis/batch/v1beta1')).status, 404);
    assert.equal((await srv.request('GET', '/apis/batch/v1beta1/namespaces/default/cronjobs')).status, 404);
    assert.equal((await srv.request('POST', '/apis/batch/v1beta1/namespaces/default/cronjobs', cronJob('x', 'batch/v1beta1'))).status, 404);
    assert.equal((await srv.request('GET', `/apis/${fc}/v1beta2/flowschemas`)).status, 404);
    assert.equal((await srv.request('GET', '/apis/batch/v1/namespaces/default/cronjobs')).status, 200);
    const v2 = (await srv.request('GET', '/openapi/v2')).json<{ paths: Record<string, unknown> }>();
    assert.ok(Object.keys(v2.paths).some((p) => p.startsWith('/apis/batch/v1/')));
    assert.ok(!Object.keys(v2.paths).some((p) => p.startsWith('/apis/batch/v1beta1/') || p.startsWith(`/apis/${fc}/`)));
  });

  it('APIListChunking off: limit and continue are ignored; RemainingItemCount off; OpenAPIV3 off: 404', async () => {
    for (const name of ['a', 'b', 'c']) {
      const r = await srv.request('POST', '/api/v1/namespaces/default/configmaps', { metadata: { name: `chunk-${name}` } });
      assert.equal(r.status, 201);
    }
    const list = (await srv.request('GET', '/api/v1/namespaces/default/configmaps?limit=1&continue=garbage')).json<{ items: unknown[]; metadata: Record<string, unknown> }>();
    assert.ok(list.items.length >= 3, `all items in one page, got ${list.items.length}`);
    assert.equal(list.metadata['continue'], undefined);
    assert.equal(list.metadata['remainingItemCount'], undefined);
    assert.equal((await srv.request('GET', '/openapi/v3')).status, 404);
    assert.equal((await srv.request('GET', '/openapi/v3/apis/batch/v1')).status, 404);
    assert.equal((await srv.request('GET', '/openapi/v2')).status, 200);
  });
});

describe('feature gates left at their defaults', () => {
  let srv: TestServer;
  before(async () => {
    srv = await startTestServer(['--feature-gates=AllBeta=true']);
  });
  after(async () => {
    await srv?.stop();
  });

  it('chunked lists with remainingItemCount, and /openapi/v3', async () => {
    for (const name of ['a', 'b', 'c']) assert.equal((await srv.request('POST', '/api/v1/namespaces/default/configmaps', { metadata: { name: `chunk-${name}` } })).status, 201);
    const list = (await srv.request('GET', '/api/v1/namespaces/default/configmaps?limit=1')).json<{ items: unknown[]; metadata: Record<string, unknown> }>();
    assert.equal(list.items.length, 1);
    assert.equal(typeof list.metadata['continue'], 'string');
    assert.equal(typeof list.metadata['remainingItemCount'], 'number');
    assert.equal((await srv.request('GET', '/openapi/v3')).status, 200);
  });
});
