/**
 * A tiny loopback API server for driving the real kubectl against the codec:
 * minimal discovery in JSON, and every POST decoded with decodeObject and
 * answered (201) with encodeObject of the created object. It records what it
 * decoded and what it sent, so a test can compare kubectl's view with ours.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { decodeObject, encodeObject, isProtobufMediaType, PROTOBUF_MEDIA_TYPE, type JsonObject } from '../../src/protobuf/index.ts';
import type { GroupVersionKind } from '../../src/openapi/schema-dsl.ts';
import { scratchDirSync } from '../support/scratch-dir.ts';

export interface RecordedCreate {
  readonly path: string;
  readonly contentType: string;
  readonly accept: string;
  /** kubectl's request body as sent. */
  readonly request: Uint8Array;
  /** kubectl's request body as our decoder read it. */
  readonly decoded: JsonObject;
  readonly gvk: GroupVersionKind;
  /** What we answered with (enveloped protobuf). */
  readonly response: Uint8Array;
  readonly responseObject: JsonObject;
}

export interface RecordedRequest {
  readonly method: string;
  readonly path: string;
  readonly contentType: string;
  readonly accept: string;
}

export interface CannedResponse {
  readonly gvk: GroupVersionKind;
  readonly object: JsonObject;
}

export interface FakeApiServer {
  readonly kubeconfig: string;
  readonly dir: string;
  readonly creates: RecordedCreate[];
  readonly requests: RecordedRequest[];
  /**
   * Path (without query) -> what a GET answers, or what a POST answers instead
   * of the created object; lets a test hand kubectl rich objects to decode.
   */
  readonly canned: Map<string, CannedResponse>;
  close(): Promise<void>;
}

const CORE_RESOURCES = [
  { name: 'namespaces', singularName: 'namespace', namespaced: false, kind: 'Namespace', verbs: ['create', 'get', 'list'] },
  { name: 'configmaps', singularName: 'configmap', namespaced: true, kind: 'ConfigMap', verbs: ['create', 'get', 'list'] },
  { name: 'secrets', singularName: 'secret', namespaced: true, kind: 'Secret', verbs: ['create', 'get', 'list'] },
  { name: 'services', singularName: 'service', namespaced: true, kind: 'Service', verbs: ['create', 'get', 'list'] },
  { name: 'pods', singularName: 'pod', namespaced: true, kind: 'Pod', verbs: ['create', 'get', 'list'] },
];

function json(res: ServerResponse, status: number, body: unknown): void {
  res.statusCode = status;
  res.setHeader('content-type', 'application/json');
  res.end(JSON.stringify(body));
}

function discovery(url: string): unknown {
  switch (url.split('?')[0]) {
    case '/version':
      return { major: '1', minor: '32', gitVersion: 'v1.32.0', platform: 'linux/amd64' };
    case '/api':
      return { kind: 'APIVersions', versions: ['v1'], serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress: '127.0.0.1' }] };
    case '/api/v1':
      return { kind: 'APIResourceList', groupVersion: 'v1', resources: CORE_RESOURCES };
    case '/apis':
      return { kind: 'APIGroupList', apiVersion: 'v1', groups: [] };
    default:
      return undefined;
  }
}

let counter = 0;

/** Server-set fields, as a create would fill them; managedFields exercises FieldsV1 and Time. */
function created(obj: JsonObject, path: string): JsonObject {
  const meta = { ...((obj.metadata as JsonObject | undefined) ?? {}) };
  const ns = /\/namespaces\/([^/]+)\//.exec(path)?.[1];
  if (ns !== undefined && meta.namespace === undefined) meta.namespace = ns;
  counter++;
  meta.uid = `00000000-0000-4000-8000-${String(counter).padStart(12, '0')}`;
  meta.resourceVersion = String(100 + counter);
  meta.creationTimestamp = '2024-05-01T10:00:00Z';
  meta.managedFields = [
    { manager: 'kubectl-create', operation: 'Update', apiVersion: obj.apiVersion, time: '2024-05-01T10:00:00Z', fieldsType: 'FieldsV1', fieldsV1: { 'f:metadata': { 'f:name': {} } } },
  ];
  const out: JsonObject = { ...obj, metadata: meta };
  if (obj.kind === 'Namespace') {
    out.spec = { finalizers: ['kubernetes'] };
    out.status = { phase: 'Active' };
  }
  return out;
}

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}

export async function startFakeApiServer(): Promise<FakeApiServer> {
  const dir = scratchDirSync('orch-pb-');
  const creates: RecordedCreate[] = [];
  const requests: RecordedRequest[] = [];
  const canned = new Map<string, CannedResponse>();
  const server: Server = createServer((req, res) => {
    void (async () => {
      const body = await readBody(req);
      const url = req.url ?? '/';
      const path = url.split('?')[0]!;
      const contentType = req.headers['content-type'] ?? '';
      requests.push({ method: req.method ?? '', path, contentType, accept: req.headers.accept ?? '' });
      const disc = req.method === 'GET' ? discovery(url) : undefined;
      if (disc !== undefined) return json(res, 200, disc);
      const reply = canned.get(path);
      if (req.method === 'GET' && reply !== undefined) {
        if (!/protobuf|\*\/\*/.test(req.headers.accept ?? '')) return json(res, 200, reply.object);
        res.statusCode = 200;
        res.setHeader('content-type', PROTOBUF_MEDIA_TYPE);
        res.end(encodeObject(reply.object, reply.gvk));
        return;
      }
      if (req.method !== 'POST') return json(res, 404, { kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'NotFound', code: 404, message: `${req.method} ${url}` });
      try {
        const { gvk, object } = isProtobufMediaType(contentType) ? decodeObject(body) : jsonBody(body);
        const responseObject = reply?.object ?? created(object, url);
        const response = encodeObject(responseObject, reply?.gvk ?? gvk);
        creates.push({ path: url, contentType, accept: req.headers.accept ?? '', request: body, decoded: object, gvk, response, responseObject });
        res.statusCode = 201;
        res.setHeader('content-type', PROTOBUF_MEDIA_TYPE);
        res.end(response);
      } catch (err) {
        json(res, 400, { kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'BadRequest', code: 400, message: String(err) });
      }
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  const kubeconfig = join(dir, 'kubeconfig');
  writeFileSync(
    kubeconfig,
    [
      'apiVersion: v1',
      'kind: Config',
      'clusters:',
      '- name: fake',
      '  cluster:',
      `    server: http://127.0.0.1:${port}`,
      'contexts:',
      '- name: fake',
      '  context:',
      '    cluster: fake',
      '    user: fake',
      'current-context: fake',
      'users:',
      '- name: fake',
      '  user:',
      '    token: not-checked',
      '',
    ].join('\n'),
  );
  return {
    kubeconfig,
    dir,
    creates,
    requests,
    canned,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

function jsonBody(body: Buffer): { gvk: GroupVersionKind; object: JsonObject } {
  const object = JSON.parse(body.toString('utf8')) as JsonObject;
  const apiVersion = String(object.apiVersion ?? '');
  const slash = apiVersion.lastIndexOf('/');
  return {
    gvk: { group: slash === -1 ? '' : apiVersion.slice(0, slash), version: apiVersion.slice(slash + 1), kind: String(object.kind ?? '') },
    object,
  };
}
