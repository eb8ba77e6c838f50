/**
 * Typed decoding of writes over HTTP, on both front ends: the hostile-user
 * review's findings (issue 9: 1, 4, part of 8). Ill-typed bodies are 400s
 * and nothing is stored; unknown and repeated fields follow
 * `fieldValidation`; deep and alias-bomb bodies are 400s, never a crash or
 * a 500; Protobuf reads of the type keep working.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type RequestAuth, type TestServer } from '../support/test-server.ts';

const PB = 'application/vnd.kubernetes.protobuf';
const CM = '/api/v1/namespaces/default/configmaps';
const DEPLOY = '/apis/apps/v1/namespaces/default/deployments';

interface Status {
  code: number;
  reason: string;
  message: string;
}

let t: TestServer;
before(async () => {
  t = await startTestServer();
});
after(async () => {
  await t.stop();
});

function deployment(name: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name },
    spec: {
      selector: { matchLabels: { app: name } },
      template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } },
      ...extra,
    },
  };
}

/** The deepest object under `v` (a chain of single-key objects) and its path. */
function deepestObject(v: unknown): { object: Record<string, unknown>; path: string[] } {
  let cur = v as Record<string, unknown>;
  const path: string[] = [];
  for (;;) {
    const next = Object.entries(cur).find(([, x]) => typeof x === 'object' && x !== null);
    if (next === undefined) return { object: cur, path };
    path.push(next[0]);
    cur = next[1] as Record<string, unknown>;
  }
}

for (const port of ['secure', 'uws'] as const) {
  const auth: RequestAuth = port === 'uws' ? { as: 'token', uws: true } : {};
  const withHeaders = (headers: Record<string, string>): RequestAuth => ({ ...auth, headers });
  const req = (method: string, path: string, body?: unknown, a: RequestAuth = auth) => t.request(method, path, body, a);
  const name = (s: string) => `${s}-${port}`;

  describe(`typed writes (${port} port)`, () => {
    test('ill-typed objects are refused with the original decoder messages and not stored', async () => {
      const cases: [string, string, Record<string, unknown>, string][] = [
        [CM, name('data'), { data: { a: 5 } }, 'ConfigMap in version "v1" cannot be handled as a ConfigMap: json: cannot unmarshal number into Go struct field ConfigMap.data of type string'],
        [CM, name('labels'), { metadata: { labels: { a: 5 } } }, 'json: cannot unmarshal number into Go struct field ObjectMeta.metadata.labels of type string'],
        [CM, name('annotations'), { metadata: { annotations: 5 } }, 'of type map[string]string'],
        [CM, name('finalizers'), { metadata: { finalizers: 'x' } }, 'of type []string'],
        [CM, name('immutable'), { immutable: 'yes' }, 'Go struct field ConfigMap.immutable of type bool'],
        [CM, name('binary'), { binaryData: { a: '%%%' } }, 'illegal base64 data at input byte 0'],
        [DEPLOY, name('replicas'), deployment('x', { replicas: '3' }), 'Deployment in version "v1" cannot be handled as a Deployment: json: cannot unmarshal string into Go struct field DeploymentSpec.spec.replicas of type int32'],
        [DEPLOY, name('range'), deployment('x', { replicas: 2 ** 31 }), 'cannot unmarshal number 2147483648 into Go struct field DeploymentSpec.spec.replicas of type int32'],
      ];
      for (const [path, n, body, message] of cases) {
        const metadata = { ...((body['metadata'] as object | undefined) ?? {}), name: n };
        const r = await req('POST', path, { ...body, metadata });
        assert.equal(r.status, 400, `${n}: ${r.body}`);
        const s = r.json<Status>();
        assert.equal(s.reason, 'BadRequest');
        assert.ok(s.message.includes(message), `${n}: ${s.message}`);
        assert.equal((await req('GET', `${path}/${n}`)).status, 404, `${n} not stored`);
      }
      const pod = await req('POST', '/api/v1/namespaces/default/pods', { metadata: { name: name('pod') }, spec: { nodeName: 5, containers: [{ name: 'c', image: 'i' }] } });
      assert.equal(pod.status, 400);
      assert.match(pod.json<Status>().message, /Go struct field PodSpec\.spec\.nodeName of type string/);
    });

    test('a name that is not a string is a 400, not a 422', async () => {
      const r = await req('POST', CM, { metadata: { name: 12345 } });
      assert.equal(r.status, 400, r.body);
      assert.match(r.json<Status>().message, /cannot unmarshal number into Go struct field ObjectMeta\.metadata\.name of type string/);
    });

    test('unknown fields: dropped with a warning by default, refused under Strict, silent under Ignore', async () => {
      const warn = await req('POST', DEPLOY, deployment(name('unknown-warn'), { foo: 1 }));
      assert.equal(warn.status, 201, warn.body);
      assert.deepEqual([warn.headers['warning']].flat(), ['299 - "unknown field \\"spec.foo\\""']);
      const stored = (await req('GET', `${DEPLOY}/${name('unknown-warn')}`)).json<{ spec: Record<string, unknown> }>();
      assert.equal(stored.spec['foo'], undefined);

      const strict = await req('POST', `${DEPLOY}?fieldValidation=Strict`, deployment(name('unknown-strict'), { foo: 1 }));
      assert.equal(strict.status, 400);
      assert.equal(strict.json<Status>().message, 'Deployment in version "v1" cannot be handled as a Deployment: strict decoding error: unknown field "spec.foo"');

      const ignore = await req('POST', `${DEPLOY}?fieldValidation=Ignore`, deployment(name('unknown-ignore'), { foo: 1 }));
      assert.equal(ignore.status, 201);
      assert.equal(ignore.headers['warning'], undefined);

      const bad = await req('POST', `${DEPLOY}?fieldValidation=Sometimes`, deployment(name('unknown-bad')));
      assert.equal(bad.status, 422);
      assert.match(bad.json<Status>().message, /fieldValidation: Unsupported value: "Sometimes"/);
    });

    test('duplicate fields under Strict and Warn', async () => {
      const text = `{"metadata":{"name":"${name('dup')}"},"data":{"a":"1"},"data":{"a":"2"}}`;
      const strict = await req('POST', `${CM}?fieldValidation=Strict`, text);
      assert.equal(strict.status, 400);
      assert.equal(strict.json<Status>().message, 'ConfigMap in version "v1" cannot be handled as a ConfigMap: strict decoding error: duplicate field "data"');
      const warn = await req('POST', CM, text);
      assert.equal(warn.status, 201);
      assert.deepEqual([warn.headers['warning']].flat(), ['299 - "duplicate field \\"data\\""']);
    });

    test('apply bodies with repeated keys: refused under Strict, a warning under Warn', async () => {
      const n = name('apply-dup');
      const yaml = `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${n}\ndata:\n  a: "1"\n  a: "2"\n`;
      const h = withHeaders({ 'content-type': 'application/apply-patch+yaml' });
      const strict = await req('PATCH', `${CM}/${n}?fieldManager=m&fieldValidation=Strict`, yaml, h);
      assert.equal(strict.status, 400, strict.body);
      assert.equal(strict.json<Status>().message, 'error strict decoding YAML: error converting YAML to JSON: yaml: unmarshal errors:\n  line 7: key "a" already set in map');
      const warn = await req('PATCH', `${CM}/${n}?fieldManager=m`, yaml, h);
      assert.equal(warn.status, 201, warn.body);
      assert.deepEqual([warn.headers['warning']].flat(), [`299 - ${JSON.stringify('error converting YAML to JSON: yaml: unmarshal errors:\n  line 7: key "a" already set in map')}`]);
      assert.deepEqual(warn.json<{ data: unknown }>().data, { a: '2' });
    });

    test('patches and apply are decoded into the kind too', async () => {
      const n = name('patched');
      assert.equal((await req('POST', CM, { metadata: { name: n }, data: { a: 'b' } })).status, 201);
      const merge = await req('PATCH', `${CM}/${n}`, { data: { a: 5 } }, withHeaders({ 'content-type': 'application/merge-patch+json' }));
      assert.equal(merge.status, 422, merge.body);
      assert.match(merge.json<Status>().message, /patch: Invalid value: .*json: cannot unmarshal number into Go struct field ConfigMap\.data of type string/);
      const smp = await req('PATCH', `${CM}/${n}?fieldValidation=Strict`, { spec: { x: 1 } }, withHeaders({ 'content-type': 'application/strategic-merge-patch+json' }));
      assert.equal(smp.status, 400);
      assert.equal(smp.json<Status>().message, 'strict decoding error: unknown field "spec"');
      const jp = await req('PATCH', `${CM}/${n}`, [{ op: 'add', path: '/metadata/labels', value: { a: 5 } }], withHeaders({ 'content-type': 'application/json-patch+json' }));
      assert.equal(jp.status, 422, jp.body);
      const apply = await req('PATCH', `${CM}/${n}?fieldManager=m&force=true`, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: n }, binaryData: { x: 'not base64' } }, withHeaders({ 'content-type': 'application/apply-patch+yaml' }));
      assert.equal(apply.status >= 400 && apply.status < 500, true, `${apply.status} ${apply.body}`);
      // Protobuf reads of the type still work: nothing ill-typed was stored.
      const pb = await req('GET', CM, undefined, withHeaders({ accept: PB }));
      assert.equal(pb.status, 200);
      const one = await req('GET', `${CM}/${n}`, undefined, withHeaders({ accept: PB }));
      assert.equal(one.status, 200);
    });

    test('base64 with line breaks is stored as Go writes it back: JSON and Protobuf agree', async () => {
      // Go's decoder skips \r and \n in []byte fields; a YAML block scalar ends its value with one (fuzz seed 12, case 215013).
      const n = name('b64nl');
      const yaml = `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${n}\nbinaryData:\n  bin: |\n    YWJj\n`;
      const apply = await req('PATCH', `${CM}/${n}?fieldManager=m`, yaml, withHeaders({ 'content-type': 'application/apply-patch+yaml' }));
      assert.equal(apply.status, 201, apply.body);
      assert.deepEqual(apply.json<{ binaryData: unknown }>().binaryData, { bin: 'YWJj' });
      const posted = await req('POST', CM, { metadata: { name: name('b64nl-post') }, binaryData: { a: 'YW\r\nJj' } });
      assert.equal(posted.status, 201, posted.body);
      assert.deepEqual(posted.json<{ binaryData: unknown }>().binaryData, { a: 'YWJj' });
      const stored = await req('GET', `${CM}/${n}`);
      assert.deepEqual(stored.json<{ binaryData: unknown }>().binaryData, { bin: 'YWJj' });
    });

    test('deep JSON bodies are 400s on every write path', async () => {
      const deep = '['.repeat(10_000) + ']'.repeat(10_000);
      const n = name('deep');
      assert.equal((await req('POST', CM, { metadata: { name: n } })).status, 201);
      const post = await req('POST', CM, `{"metadata":{"name":"x"},"data":${deep}}`);
      assert.equal(post.status, 400, post.body.slice(0, 200));
      for (const type of ['application/merge-patch+json', 'application/strategic-merge-patch+json']) {
        const r = await req('PATCH', `${CM}/${n}`, `{"data":${deep}}`, withHeaders({ 'content-type': type }));
        assert.equal(r.status, 400, `${type}: ${r.body.slice(0, 200)}`);
      }
      // DeleteOptions too (a 100,000-deep propagationPolicy was a 500: a recursive walk overflowed).
      const del = await req('DELETE', `${CM}/${n}`, `{"kind":"DeleteOptions","apiVersion":"v1","propagationPolicy":${'{"a":'.repeat(100_000)}1${'}'.repeat(100_000)}}`);
      assert.equal(del.status, 400, del.body.slice(0, 200));
      assert.equal((await req('GET', `${CM}/${n}`)).status, 200, 'not deleted');
    });

    test('a JSON patch that deepens a stored object past the limit is refused, not a 500', async () => {
      const n = name('revision');
      let data: unknown = 'leaf';
      for (let i = 0; i < 900; i++) data = { x: data };
      const path = '/apis/apps/v1/namespaces/default/controllerrevisions';
      const created = await req('POST', path, { metadata: { name: n }, revision: 1, data });
      assert.equal(created.status, 201, created.body.slice(0, 200));
      // Each copy of /data into its own deepest object doubles its depth: 900 -> 1800 -> 3600 -> 7200.
      const ops: { op: string; from: string; path: string }[] = [];
      let local = data;
      for (let i = 0; i < 3; i++) {
        const at = deepestObject(local);
        ops.push({ op: 'copy', from: '/data', path: ['/data', ...at.path, 'y'].join('/') });
        at.object['y'] = JSON.parse(JSON.stringify(local)) as unknown; // at most 3600 deep: within JSON's reach
      }
      const r = await req('PATCH', `${path}/${n}`, ops, withHeaders({ 'content-type': 'application/json-patch+json' }));
      assert.ok(r.status >= 400 && r.status < 500, `${r.status} ${r.body.slice(0, 300)}`);
      assert.equal((await req('GET', `${path}/${n}`, undefined, withHeaders({ accept: PB }))).status, 200);
    });

    test('deep and alias-bomb apply bodies are 400s, and the server lives', async () => {
      const n = name('deep-apply');
      assert.equal((await req('POST', CM, { metadata: { name: n } })).status, 201);
      for (const depth of [10_000, 5_000]) {
        const r = await req('PATCH', `${CM}/${n}?fieldManager=m`, '['.repeat(depth), withHeaders({ 'content-type': 'application/apply-patch+yaml' }));
        assert.equal(r.status, 400, r.body.slice(0, 200));
        assert.match(r.json<Status>().message, /exceeded max depth/);
      }
      const laughs = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]'];
      for (let i = 1; i < 9; i++) laughs.push(`${String.fromCharCode(97 + i)}: &${String.fromCharCode(97 + i)} [${Array(9).fill(`*${String.fromCharCode(96 + i)}`).join(',')}]`);
      const bomb = await req('PATCH', `${CM}/${n}?fieldManager=m`, laughs.join('\n'), withHeaders({ 'content-type': 'application/apply-patch+yaml' }));
      assert.equal(bomb.status, 400, bomb.body.slice(0, 200));
      assert.match(bomb.json<Status>().message, /excessive aliasing/);
      assert.equal((await req('GET', `${CM}/${n}`)).status, 200);
    });
  });
}
