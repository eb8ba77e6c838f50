/**
 * Custom resources in the spec's flavor (`x-orch-*` markers) on a server with
 * two serving threads: a definition is served by both threads; several
 * versions with `None` conversion read each other's objects; defaults apply
 * on write and on read; the scale subresource follows the definition's
 * paths; the definition itself is validated with the original's messages;
 * conflicting names leave NamesAccepted False; a v1beta1 definition is
 * converted to v1 (spec 9.3).
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from '../support/test-server.ts';
import { apiGroup, names } from '../../src/naming/index.ts';
import fs from 'node:fs/promises';
import https from 'node:https';
import { UWS_DISABLED } from '../support/uws-toggle.ts';

/** One GET on a new connection, so the kernel picks a serving thread each time. */
function freshGet(port: number, ca: Buffer, token: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = https.request(
      { host: '127.0.0.1', port, path: '/apis/example.com/v1/namespaces/default/widgets', agent: false, ca, servername: 'localhost', headers: { authorization: `Bearer ${token}`, accept: 'application/json' } },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end();
  });
}

const AX = apiGroup('apiextensions');
const X = names.openApiExtensionPrefix;
const CRDS = `/apis/${AX}/v1/customresourcedefinitions`;

async function eventually(what: string, check: () => Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) assert.fail(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

type Crd = { metadata: { name: string }; status?: { conditions?: Array<{ type: string; status: string; reason: string; message: string }> } };

function widgetSchema(withDefault: boolean): Record<string, unknown> {
  return {
    type: 'object',
    properties: {
      spec: {
        type: 'object',
        properties: {
          replicas: { type: 'integer', minimum: 0 },
          size: withDefault ? { type: 'string', default: 'M' } : { type: 'string' },
          extra: { type: 'object', [`${X}preserve-unknown-fields`]: true },
          selector: { type: 'string' },
        },
      },
      status: { type: 'object', properties: { replicas: { type: 'integer' }, selector: { type: 'string' } } },
    },
  };
}

const WIDGETS = {
  apiVersion: `${AX}/v1`,
  kind: 'CustomResourceDefinition',
  metadata: { name: 'widgets.example.com' },
  spec: {
    group: 'example.com',
    scope: 'Namespaced',
    names: { plural: 'widgets', singular: 'widget', kind: 'Widget', shortNames: ['wd'] },
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        schema: { openAPIV3Schema: widgetSchema(true) },
        subresources: { status: {}, scale: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas', labelSelectorPath: '.status.selector' } },
      },
      { name: 'v1beta1', served: true, storage: false, schema: { openAPIV3Schema: widgetSchema(false) } },
    ],
  },
};

describe('custom resources: versions, defaults, scale and two serving threads', () => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer(['--frontend-threads=2']);
  });
  after(async () => {
    await t?.stop();
  });

  const established = async (name: string): Promise<Crd> => {
    let crd: Crd | undefined;
    await eventually(`${name} established`, async () => {
      crd = (await t.request('GET', `${CRDS}/${name}`)).json<Crd>();
      return crd.status?.conditions?.some((c) => c.type === 'Established' && c.status === 'True') ?? false;
    });
    return crd!;
  };

  it('serves an established definition in every thread', async () => {
    const r = await t.request('POST', CRDS, WIDGETS);
    assert.equal(r.status, 201, r.body);
    await established('widgets.example.com');
    // Fresh connections (agent: false) spread over both threads: every one must find the type.
    const ca = await fs.readFile(t.server.files.caCertPath);
    const port = !UWS_DISABLED && t.uwsPort !== null ? t.uwsPort : t.securePort;
    await eventually('both threads to serve widgets', async () => {
      for (let i = 0; i < 16; i++) if ((await freshGet(port, ca, t.server.files.adminToken)) !== 200) return false;
      return true;
    });
    const metrics = (await t.request('GET', '/metrics')).body;
    assert.match(metrics, /apiserver_frontend_thread_requests_total\{thread="1"\} [1-9]/);
  });

  it('defaults on write; versions read each other with None conversion', async () => {
    const c = await t.request('POST', '/apis/example.com/v1beta1/namespaces/default/widgets', { apiVersion: 'example.com/v1beta1', kind: 'Widget', metadata: { name: 'w1' }, spec: { replicas: 2, extra: { free: { form: 1 } } } });
    assert.equal(c.status, 201, c.body);
    const v1beta1 = c.json<{ apiVersion: string; spec: Record<string, unknown> }>();
    assert.equal(v1beta1.apiVersion, 'example.com/v1beta1');
    assert.equal(v1beta1.spec['size'], undefined, 'v1beta1 declares no default');
    const v1 = (await t.request('GET', '/apis/example.com/v1/namespaces/default/widgets/w1')).json<{ apiVersion: string; spec: Record<string, unknown> }>();
    assert.equal(v1.apiVersion, 'example.com/v1');
    assert.equal(v1.spec['size'], 'M', 'v1 defaults on read');
    assert.deepEqual(v1.spec['extra'], { free: { form: 1 } });
    const list = (await t.request('GET', '/apis/example.com/v1/widgets')).json<{ items: Array<{ apiVersion: string; spec: { size?: string } }> }>();
    assert.equal(list.items[0]!.apiVersion, 'example.com/v1');
    assert.equal(list.items[0]!.spec.size, 'M');
    const direct = await t.request('POST', '/apis/example.com/v1/namespaces/default/widgets', { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w2' }, spec: {} });
    assert.equal(direct.json<{ spec: { size: string } }>().spec.size, 'M', 'v1 defaults on write');
  });

  it('scales through the paths of the definition', async () => {
    await t.request('PATCH', '/apis/example.com/v1/namespaces/default/widgets/w1/status', { status: { replicas: 2, selector: 'app=w' } }, { headers: { 'content-type': 'application/merge-patch+json' } });
    const s = (await t.request('GET', '/apis/example.com/v1/namespaces/default/widgets/w1/scale')).json<{ kind: string; spec: { replicas: number }; status: { replicas: number; selector: string } }>();
    assert.equal(s.kind, 'Scale');
    assert.deepEqual([s.spec.replicas, s.status.replicas, s.status.selector], [2, 2, 'app=w']);
    const k = await t.kubectl(['scale', '--replicas=5', 'widget/w1', '-n', 'default']);
    assert.equal(k.code, 0, k.stderr);
    const after = (await t.request('GET', '/apis/example.com/v1/namespaces/default/widgets/w1')).json<{ spec: { replicas: number } }>();
    assert.equal(after.spec.replicas, 5);
    // Without printer columns a custom resource shows its name and age, as in the original.
    const g = await t.kubectl(['get', 'wd', '-n', 'default']);
    assert.match(g.stdout.split('\n')[0]!, /^NAME\s+AGE$/);
  });

  it('validates the definition with the original messages', async () => {
    const bad = {
      ...WIDGETS,
      metadata: { name: 'gadgets.example.com' },
      spec: {
        ...WIDGETS.spec,
        names: { plural: 'gadgets', kind: 'Gadget' },
        versions: [
          { name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', properties: { spec: { properties: { a: { type: 'string' } } } } } } },
          { name: 'v2', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object' } } },
        ],
      },
    };
    const r = await t.request('POST', CRDS, bad);
    assert.equal(r.status, 422, r.body);
    const msg = r.json<{ message: string }>().message;
    assert.match(msg, new RegExp(`^CustomResourceDefinition.${AX.replace(/\./g, '\\.')} "gadgets.example.com" is invalid: `));
    assert.match(msg, /spec.versions\[0\].schema.openAPIV3Schema.properties\[spec\].type: Required value: must not be empty for specified object fields/);
    assert.match(msg, /spec.versions: Invalid value: .*: must have exactly one version marked as storage version/);
    const wrongName = await t.request('POST', CRDS, { ...WIDGETS, metadata: { name: 'wrong.example.com' } });
    assert.equal(wrongName.status, 422);
    assert.match(wrongName.body, /metadata.name: Invalid value: \\"wrong.example.com\\": must be spec.names.plural\+\\".\\"\+spec.group/);
  });

  it('leaves NamesAccepted False when names conflict', async () => {
    const other = { ...WIDGETS, metadata: { name: 'gizmos.example.com' }, spec: { ...WIDGETS.spec, names: { plural: 'gizmos', singular: 'gizmo', kind: 'Widget' } } };
    const r = await t.request('POST', CRDS, other);
    assert.equal(r.status, 201, r.body);
    await eventually('NamesAccepted False', async () => {
      const crd = (await t.request('GET', `${CRDS}/gizmos.example.com`)).json<Crd>();
      const c = crd.status?.conditions?.find((x) => x.type === 'NamesAccepted');
      return c?.status === 'False' && c.reason === 'KindConflict' && c.message === '"Widget" is already in use';
    });
    assert.equal((await t.request('GET', '/apis/example.com/v1/gizmos')).status, 404);
  });

  it('converts a v1beta1 definition to v1', async () => {
    const r = await t.request('POST', `/apis/${AX}/v1beta1/customresourcedefinitions`, {
      apiVersion: `${AX}/v1beta1`,
      kind: 'CustomResourceDefinition',
      metadata: { name: 'olds.example.com' },
      spec: {
        group: 'example.com',
        version: 'v1',
        names: { plural: 'olds', kind: 'Old' },
        validation: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: { a: { type: 'string' } } } } } },
        additionalPrinterColumns: [{ name: 'A', type: 'string', JSONPath: '.spec.a' }],
      },
    });
    assert.equal(r.status, 201, r.body);
    assert.match(String(r.headers['warning'] ?? ''), /deprecated/);
    const v1 = (await t.request('GET', `${CRDS}/olds.example.com`)).json<{ spec: { scope: string; versions: Array<{ name: string; schema: unknown; additionalPrinterColumns: Array<{ jsonPath: string }> }> } }>();
    assert.equal(v1.spec.scope, 'Namespaced');
    assert.equal(v1.spec.versions[0]!.name, 'v1');
    assert.ok(v1.spec.versions[0]!.schema);
    assert.equal(v1.spec.versions[0]!.additionalPrinterColumns[0]!.jsonPath, '.spec.a');
    await established('olds.example.com');
    await eventually('olds served', async () => (await t.request('GET', '/apis/example.com/v1/olds')).status === 200);
  });
});
