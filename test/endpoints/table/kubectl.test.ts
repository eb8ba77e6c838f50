/**
 * The real client: kubectl 1.32 against a minimal loopback HTTP server that
 * serves discovery and answers the pod list through negotiate() and
 * toTable(). Checks that kubectl decodes our Table and prints the columns
 * and cells the original would, in normal and wide output, and that the
 * requests it makes for other outputs fall back to plain JSON.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import fs from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { negotiate } from '../../../src/endpoints/negotiate.ts';
import { StatusError } from '../../../src/api/status.ts';
import { tableWatchEncoder, toTable, type JsonObject, type KindInfo } from '../../../src/endpoints/table/index.ts';

const POD: KindInfo = { group: '', version: 'v1', kind: 'Pod', resource: 'pods' };
const NAMESPACE: KindInfo = { group: '', version: 'v1', kind: 'Namespace', resource: 'namespaces' };

function agoIso(seconds: number): string {
  return new Date(Date.now() - seconds * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

function pods(): JsonObject[] {
  return [
    {
      metadata: { name: 'web-0', namespace: 'default', uid: 'u0', resourceVersion: '11', creationTimestamp: agoIso(300), labels: { app: 'web' } },
      spec: { containers: [{ name: 'nginx', image: 'nginx:1.27' }], nodeName: 'node-a' },
      status: {
        phase: 'Running',
        podIP: '10.1.0.5',
        podIPs: [{ ip: '10.1.0.5' }],
        conditions: [{ type: 'Ready', status: 'True' }],
        containerStatuses: [{ name: 'nginx', ready: true, started: true, restartCount: 0, state: { running: { startedAt: agoIso(290) } } }],
      },
    },
    {
      metadata: { name: 'web-1', namespace: 'default', uid: 'u1', resourceVersion: '12', creationTimestamp: agoIso(600), labels: { app: 'web' } },
      spec: { containers: [{ name: 'nginx', image: 'nginx:1.27' }], nodeName: 'node-b' },
      status: {
        phase: 'Running',
        podIP: '10.1.0.6',
        podIPs: [{ ip: '10.1.0.6' }],
        containerStatuses: [
          {
            name: 'nginx',
            ready: false,
            restartCount: 3,
            state: { waiting: { reason: 'CrashLoopBackOff' } },
            lastState: { terminated: { exitCode: 1, reason: 'Error', finishedAt: agoIso(120) } },
          },
        ],
      },
    },
  ];
}

function namespaces(): JsonObject[] {
  return [
    { metadata: { name: 'default', uid: 'n0', resourceVersion: '3', creationTimestamp: agoIso(3 * 86400) }, status: { phase: 'Active' } },
    { metadata: { name: 'shop', uid: 'n1', resourceVersion: '4', creationTimestamp: agoIso(7200) }, status: { phase: 'Terminating' } },
  ];
}

const VERBS = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];

const discovery: Record<string, JsonObject> = {
  '/api': { kind: 'APIVersions', versions: ['v1'], serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress: '127.0.0.1' }] },
  '/apis': { kind: 'APIGroupList', apiVersion: 'v1', groups: [] },
  '/api/v1': {
    kind: 'APIResourceList',
    groupVersion: 'v1',
    resources: [
      { name: 'pods', singularName: 'pod', namespaced: true, kind: 'Pod', verbs: VERBS, shortNames: ['po'], categories: ['all'] },
      { name: 'namespaces', singularName: 'namespace', namespaced: false, kind: 'Namespace', verbs: VERBS, shortNames: ['ns'] },
    ],
  },
  '/version': { major: '1', minor: '32', gitVersion: 'v1.32.0', gitCommit: '0000000', gitTreeState: 'clean', buildDate: '2025-01-01T00:00:00Z', goVersion: 'go1.23.4', compiler: 'gc', platform: 'linux/amd64' },
};

interface Seen {
  path: string;
  accept: string | undefined;
  answered: string;
  includeObject: string | null;
}

/**
 * A pod watch: two events (the first carries the column definitions), then
 * the stream stays open until the client goes away.
 */
function answerWatch(req: http.IncomingMessage, url: URL, seen: Seen[], res: http.ServerResponse): void {
  const chosen = negotiate(req.headers.accept, { protobufAllowed: false, tableAllowed: true, watch: true, includeObject: url.searchParams.get('includeObject') });
  seen.push({ path: `${url.pathname}?watch`, accept: req.headers.accept, answered: chosen.kind, includeObject: url.searchParams.get('includeObject') });
  res.writeHead(200, { 'content-type': chosen.contentType, 'transfer-encoding': 'chunked' });
  if (chosen.kind !== 'table') return void res.end();
  const encode = tableWatchEncoder(POD, { includeObject: chosen.includeObject, tableGroup: chosen.group, tableVersion: chosen.version });
  const [web0, web1] = pods();
  const restarted = { ...web1!, metadata: { ...(web1!['metadata'] as JsonObject), resourceVersion: '21' }, status: { phase: 'Running', containerStatuses: [{ name: 'nginx', ready: true, restartCount: 4, state: { running: {} } }] } };
  const added = { ...web0!, metadata: { ...(web0!['metadata'] as JsonObject), name: 'web-2', resourceVersion: '22', creationTimestamp: agoIso(1) } };
  res.write(`${JSON.stringify({ type: 'MODIFIED', object: encode(restarted) })}\n`);
  res.write(`${JSON.stringify({ type: 'ADDED', object: encode(added) })}\n`);
}

/** Lists answered through the code under test: a Table when negotiated, else the plain list. */
function answerList(req: http.IncomingMessage, url: URL, kind: KindInfo, items: JsonObject[], seen: Seen[], res: http.ServerResponse): void {
  const record = (answered: string): void => {
    seen.push({ path: url.pathname, accept: req.headers.accept, answered, includeObject: url.searchParams.get('includeObject') });
  };
  try {
    const chosen = negotiate(req.headers.accept, { protobufAllowed: false, tableAllowed: true, watch: false, includeObject: url.searchParams.get('includeObject') });
    if (chosen.kind === 'table') {
      const table = toTable(kind, items, { resourceVersion: '20' }, {
        includeObject: chosen.includeObject,
        tableGroup: chosen.group,
        tableVersion: chosen.version,
        now: new Date(),
      });
      record(`table ${table.apiVersion} ${chosen.includeObject}`);
      res.writeHead(200, { 'content-type': chosen.contentType });
      res.end(JSON.stringify(table));
      return;
    }
    record(chosen.kind);
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ kind: `${kind.kind}List`, apiVersion: 'v1', metadata: { resourceVersion: '20' }, items }));
  } catch (err) {
    const status = err instanceof StatusError ? err : new StatusError(500, 'InternalError', String(err));
    record(`error ${status.code}`);
    res.writeHead(status.code, { 'content-type': 'application/json' });
    res.end(JSON.stringify(status.toStatus()));
  }
}

function kubectl(kubeconfig: string, home: string, args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      'kubectl',
      ['--kubeconfig', kubeconfig, ...args],
      { timeout: 60_000, env: { ...process.env, HOME: home, KUBECACHEDIR: path.join(home, 'cache') } },
      (err, stdout, stderr) => {
        const code = err === null ? 0 : typeof (err as { code?: unknown }).code === 'number' ? (err as { code: number }).code : 1;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

/** kubectl's table as rows of cells (columns are separated by at least two spaces). */
function parse(stdout: string): string[][] {
  return stdout
    .trimEnd()
    .split('\n')
    .map((line) => line.trim().split(/\s{2,}/));
}

describe('kubectl 1.32 reads our Tables', () => {
  let server: http.Server;
  let dir: string;
  let kubeconfig: string;
  const seen: Seen[] = [];

  before(async () => {
    server = http.createServer((req, res) => {
      const url = new URL(req.url ?? '/', 'http://127.0.0.1');
      const doc = discovery[url.pathname];
      if (req.method === 'GET' && doc !== undefined) {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify(doc));
      } else if (req.method === 'GET' && url.pathname === '/api/v1/namespaces/default/pods' && url.searchParams.get('watch') === 'true') {
        answerWatch(req, url, seen, res);
      } else if (req.method === 'GET' && url.pathname === '/api/v1/namespaces/default/pods') {
        answerList(req, url, POD, pods(), seen, res);
      } else if (req.method === 'GET' && url.pathname === '/api/v1/namespaces') {
        answerList(req, url, NAMESPACE, namespaces(), seen, res);
      } else {
        res.writeHead(404, { 'content-type': 'application/json' });
        res.end(JSON.stringify(new StatusError(404, 'NotFound', 'the server could not find the requested resource').toStatus()));
      }
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'orch-table-kubectl-'));
    kubeconfig = path.join(dir, 'kubeconfig');
    await fs.writeFile(
      kubeconfig,
      [
        'apiVersion: v1',
        'kind: Config',
        'clusters:',
        '- name: local',
        '  cluster:',
        `    server: http://127.0.0.1:${port}`,
        'users:',
        '- name: anonymous',
        '  user: {}',
        'contexts:',
        '- name: local',
        '  context: {cluster: local, user: anonymous, namespace: default}',
        'current-context: local',
        '',
      ].join('\n'),
    );
  });

  after(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await fs.rm(dir, { recursive: true, force: true });
  });

  it('prints kubectl get pods from our Table', async () => {
    const r = await kubectl(kubeconfig, dir, ['get', 'pods', '-n', 'default']);
    assert.equal(r.code, 0, r.stderr);
    const rows = parse(r.stdout);
    assert.deepEqual(rows[0], ['NAME', 'READY', 'STATUS', 'RESTARTS', 'AGE']);
    assert.deepEqual(rows[1], ['web-0', '1/1', 'Running', '0', '5m']);
    assert.deepEqual(rows[2], ['web-1', '0/1', 'CrashLoopBackOff', '3 (2m ago)', '10m']);
    assert.equal(rows.length, 3);
    // It asked for a Table in meta.k8s.io and got one in that group.
    const asked = seen.filter((s) => s.path === '/api/v1/namespaces/default/pods').at(-1)!;
    assert.match(asked.accept ?? '', /^application\/json;as=Table;v=v1;g=meta\.k8s\.io,application\/json;as=Table;v=v1beta1;g=meta\.k8s\.io,application\/json$/);
    assert.equal(asked.answered, 'table meta.k8s.io/v1 Metadata');
  });

  it('prints the wide columns with -o wide', async () => {
    const r = await kubectl(kubeconfig, dir, ['get', 'pods', '-o', 'wide']);
    assert.equal(r.code, 0, r.stderr);
    const rows = parse(r.stdout);
    assert.deepEqual(rows[0], ['NAME', 'READY', 'STATUS', 'RESTARTS', 'AGE', 'IP', 'NODE', 'NOMINATED NODE', 'READINESS GATES']);
    assert.deepEqual(rows[1], ['web-0', '1/1', 'Running', '0', '5m', '10.1.0.5', 'node-a', '<none>', '<none>']);
    assert.deepEqual(rows[2], ['web-1', '0/1', 'CrashLoopBackOff', '3 (2m ago)', '10m', '10.1.0.6', 'node-b', '<none>', '<none>']);
  });

  it('uses the row metadata for --show-labels and full objects for --sort-by', async () => {
    const labels = await kubectl(kubeconfig, dir, ['get', 'pods', '--show-labels']);
    assert.equal(labels.code, 0, labels.stderr);
    assert.deepEqual(parse(labels.stdout)[1], ['web-0', '1/1', 'Running', '0', '5m', 'app=web']);

    const sorted = await kubectl(kubeconfig, dir, ['get', 'pods', '--sort-by=.status.podIP', '--no-headers']);
    assert.equal(sorted.code, 0, sorted.stderr);
    assert.deepEqual(parse(sorted.stdout).map((r) => r[0]), ['web-0', 'web-1']);
    assert.equal(seen.at(-1)!.includeObject, 'Object');
    assert.equal(seen.at(-1)!.answered, 'table meta.k8s.io/v1 Object');
  });

  it('prints cluster-scoped namespaces', async () => {
    const r = await kubectl(kubeconfig, dir, ['get', 'namespaces']);
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(parse(r.stdout), [
      ['NAME', 'STATUS', 'AGE'],
      ['default', 'Active', '3d'],
      ['shop', 'Terminating', '120m'],
    ]);
  });

  it('follows a watch of Table events with kubectl get -w', async () => {
    const child = spawn('kubectl', ['--kubeconfig', kubeconfig, 'get', 'pods', '--watch'], {
      env: { ...process.env, HOME: dir, KUBECACHEDIR: path.join(dir, 'cache') },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
    try {
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`kubectl printed only:\n${stdout}\n${stderr}`)), 30_000);
        child.stdout.on('data', (d: Buffer) => {
          stdout += d.toString();
          if (stdout.includes('web-2')) {
            clearTimeout(timer);
            resolve();
          }
        });
      });
    } finally {
      child.kill();
      await exited;
    }
    const rows = parse(stdout);
    assert.deepEqual(rows[0], ['NAME', 'READY', 'STATUS', 'RESTARTS', 'AGE']);
    assert.deepEqual(rows.slice(1, 3).map((r) => r[0]), ['web-0', 'web-1']);
    assert.deepEqual(rows[3], ['web-1', '1/1', 'Running', '4', '10m']);
    assert.deepEqual(rows[4], ['web-2', '1/1', 'Running', '0', '1s']);
    const watched = seen.find((s) => s.path.endsWith('?watch'));
    assert.equal(watched?.answered, 'table');
  });

  it('gets plain JSON when it asks for objects (-o name)', async () => {
    const r = await kubectl(kubeconfig, dir, ['get', 'pods', '-o', 'name']);
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(r.stdout.trim().split('\n'), ['pod/web-0', 'pod/web-1']);
    assert.equal(seen.at(-1)!.answered, 'json');
  });
});
