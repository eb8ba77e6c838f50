/**
 * A tiny loopback HTTP server that speaks just enough of the API for the real
 * kubectl: /version, legacy discovery (built by the server's own discovery
 * builder), our OpenAPI documents, and an in-memory object store for one
 * resource path so `kubectl apply` can create and patch. It records every
 * request, so tests can check what kubectl sent.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildDiscovery } from '../../src/endpoints/discovery.ts';
import type { OpenApiDocuments } from '../../src/openapi/build.ts';
import { openApiResponse } from '../../src/openapi/serve.ts';
import type { ResourceRegistry } from '../../src/registry/registry.ts';

export interface RecordedRequest {
  method: string;
  url: string;
  contentType: string | undefined;
  accept: string | undefined;
  body: string;
}

export interface Harness {
  readonly requests: RecordedRequest[];
  /** Runs kubectl with this server's kubeconfig; resolves with its output whatever the exit code. */
  kubectl(args: string[], stdin?: string): Promise<{ code: number; stdout: string; stderr: string }>;
  close(): Promise<void>;
}

const VERSION = { major: '1', minor: '32', gitVersion: 'v1.32.0', platform: 'linux/amd64' };

export async function startHarness(registry: ResourceRegistry, docs: OpenApiDocuments): Promise<Harness> {
  const requests: RecordedRequest[] = [];
  const objects = new Map<string, Record<string, unknown>>();
  let discovery: ReadonlyMap<string, Uint8Array> = new Map();
  const server: Server = createServer((req, res) => {
    void readBody(req).then((body) => {
      requests.push({ method: req.method ?? '', url: req.url ?? '', contentType: req.headers['content-type'], accept: req.headers.accept, body });
      handle(req, res, body);
    });
  });
  const handle = (req: IncomingMessage, res: ServerResponse, body: string): void => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const path = url.pathname;
    if (path === '/version') return json(res, 200, VERSION);
    const doc = discovery.get(path);
    if (doc !== undefined) return send(res, 200, { 'content-type': 'application/json' }, doc);
    const oa = openApiResponse(docs, { path, query: url.searchParams, accept: req.headers.accept, ifNoneMatch: req.headers['if-none-match'] });
    if (oa !== undefined) return send(res, oa.status, oa.headers, oa.body);
    // A minimal object store: POST to a collection, GET and PATCH an item.
    if (req.method === 'POST') {
      const obj = JSON.parse(body) as { metadata: { name: string } };
      const key = `${path}/${obj.metadata.name}`;
      objects.set(key, { ...obj, metadata: { ...obj.metadata, uid: 'u-1', resourceVersion: '1' } });
      return json(res, 201, objects.get(key));
    }
    const stored = objects.get(path);
    if (req.method === 'GET' && stored !== undefined) return json(res, 200, stored);
    if (req.method === 'PATCH' && stored !== undefined) return json(res, 200, stored);
    json(res, 404, { kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'NotFound', code: 404, message: `${path} not found` });
  };
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  discovery = buildDiscovery(registry, `127.0.0.1:${port}`).byPath;

  const dir = mkdtempSync(join(tmpdir(), 'orch-openapi-kubectl-'));
  const kubeconfig = join(dir, 'kubeconfig');
  writeFileSync(
    kubeconfig,
    [
      'apiVersion: v1',
      'kind: Config',
      'clusters:',
      `- name: test\n  cluster:\n    server: http://127.0.0.1:${port}`,
      'users:',
      '- name: test\n  user: {}',
      'contexts:',
      '- name: test\n  context:\n    cluster: test\n    user: test',
      'current-context: test',
      '',
    ].join('\n'),
  );
  const kubectl: Harness['kubectl'] = (args, stdin) =>
    new Promise((resolve) => {
      const child = execFile(
        'kubectl',
        ['--kubeconfig', kubeconfig, '--cache-dir', join(dir, 'cache'), ...args],
        { env: { ...process.env, HOME: dir, KUBECONFIG: kubeconfig }, timeout: 60_000 },
        (err, stdout, stderr) => resolve({ code: err === null ? 0 : typeof err.code === 'number' ? err.code : 1, stdout, stderr }),
      );
      if (stdin !== undefined) child.stdin?.end(stdin);
    });
  return {
    requests,
    kubectl,
    close: async () => {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
  });
}

function json(res: ServerResponse, status: number, body: unknown): void {
  send(res, status, { 'content-type': 'application/json' }, new TextEncoder().encode(JSON.stringify(body)));
}

function send(res: ServerResponse, status: number, headers: Readonly<Record<string, string>>, body: Uint8Array): void {
  res.writeHead(status, { ...headers, 'content-length': String(body.length) });
  res.end(body);
}
