/**
 * A watch on 10,000 custom resources against one on 10,000 ConfigMaps
 * (issue 16: custom resources live in the shards like built-in types).
 *
 * `npm run bench:crd` (knobs: BENCH_CRD_OBJECTS, BENCH_CRD_ROUNDS,
 * BENCH_CRD_CONCURRENCY; BENCH_API_SERVER=tsx runs the server from source).
 *
 * Per kind and round, on a fresh namespace of a server started for the run
 * (loadtest/api/server.ts: a child process on loopback, embedded store):
 * - live: a watch from the resourceVersion of a LIST, then N creates of
 *   ~200-byte objects (64 in flight on the uWS port); the time from the
 *   first create sent to the N-th ADDED event received, and events/s;
 * - initial: a watch without resourceVersion, which starts with N synthetic
 *   ADDED events; the time to the N-th.
 * Kinds alternate within each round so machine noise hits both; medians.
 */
import https from 'node:https';
import os from 'node:os';
import { writeFileSync } from 'node:fs';
import { startApiServer, stopEverything, describeServer, REPO_ROOT, type ServerHandle } from '../api/server.ts';
import { describeMachine, machineInfo } from '../lib/machine.ts';
import { envNumber } from '../lib/env.ts';

const N = envNumber('BENCH_CRD_OBJECTS', 10_000);
const ROUNDS = envNumber('BENCH_CRD_ROUNDS', 3);
const CONCURRENCY = envNumber('BENCH_CRD_CONCURRENCY', 64);
const GROUP = 'bench.example.com';
const AX = process.env['BENCH_API_FLAVOR'] === 'kubernetes' ? 'apiextensions.k8s.io' : undefined;

interface Kind {
  name: 'configmaps' | 'custom resources';
  path(ns: string): string;
  body(ns: string, i: number): unknown;
}

const CONFIGMAPS: Kind = {
  name: 'configmaps',
  path: (ns) => `/api/v1/namespaces/${ns}/configmaps`,
  body: (ns, i) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `o-${i}`, namespace: ns, labels: { bench: 'crd' } }, data: { payload: 'x'.repeat(160) } }),
};

const WIDGETS: Kind = {
  name: 'custom resources',
  path: (ns) => `/apis/${GROUP}/v1/namespaces/${ns}/widgets`,
  body: (ns, i) => ({ apiVersion: `${GROUP}/v1`, kind: 'Widget', metadata: { name: `o-${i}`, namespace: ns, labels: { bench: 'crd' } }, spec: { payload: 'x'.repeat(160) } }),
};

class Client {
  readonly #agent: https.Agent;
  constructor(readonly server: ServerHandle) {
    this.#agent = new https.Agent({ ca: server.ca, keepAlive: true, maxSockets: CONCURRENCY });
  }

  request(method: string, path: string, body?: unknown): Promise<{ status: number; text: string }> {
    return new Promise((resolve, reject) => {
      const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
      const req = https.request(
        {
          host: '127.0.0.1',
          port: this.server.uwsPort,
          method,
          path,
          agent: this.#agent,
          servername: 'localhost',
          headers: { authorization: `Bearer ${this.server.token}`, accept: 'application/json', ...(payload ? { 'content-type': 'application/json', 'content-length': String(payload.length) } : {}) },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
          res.on('error', reject);
        },
      );
      req.on('error', reject);
      req.end(payload);
    });
  }

  /** Opens a watch; resolves the time the `count`-th ADDED event arrived (ms, performance.now()). */
  watchUntil(path: string, count: number): { opened: Promise<void>; done: Promise<number>; close(): void } {
    let req: ReturnType<typeof https.request> | undefined;
    let openedResolve!: () => void;
    const opened = new Promise<void>((r) => (openedResolve = r));
    const done = new Promise<number>((resolve, reject) => {
      let seen = 0;
      let tail = '';
      req = https.request(
        { host: '127.0.0.1', port: this.server.uwsPort, method: 'GET', path, agent: false, ca: this.server.ca, servername: 'localhost', headers: { authorization: `Bearer ${this.server.token}`, accept: 'application/json' } },
        (res) => {
          openedResolve();
          res.on('data', (c: Buffer) => {
            const text = tail + c.toString('utf8');
            let at = 0;
            for (;;) {
              const hit = text.indexOf('"type":"ADDED"', at);
              if (hit < 0) break;
              seen++;
              at = hit + 14;
            }
            tail = text.slice(Math.max(at, text.length - 13));
            if (seen >= count) resolve(performance.now());
          });
          res.on('error', reject);
          res.on('end', () => reject(new Error(`watch ended after ${seen} events`)));
        },
      );
      req.on('error', reject);
      req.end();
    });
    return { opened, done, close: () => req?.destroy() };
  }
}

async function createAll(c: Client, kind: Kind, ns: string): Promise<{ t0: number; lastAck: number }> {
  let next = 0;
  let lastAck = 0;
  const t0 = performance.now();
  const worker = async (): Promise<void> => {
    for (;;) {
      const i = next++;
      if (i >= N) return;
      const r = await c.request('POST', kind.path(ns), kind.body(ns, i));
      if (r.status !== 201) throw new Error(`create ${kind.name} ${i}: ${r.status} ${r.text.slice(0, 200)}`);
      lastAck = performance.now();
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  return { t0, lastAck };
}

async function round(c: Client, kind: Kind, r: number): Promise<{ live: number; tail: number; initial: number }> {
  const ns = `b${r}-${kind.name === 'configmaps' ? 'cm' : 'cr'}`;
  const made = await c.request('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
  if (made.status !== 201) throw new Error(`namespace: ${made.status} ${made.text}`);
  const list = await c.request('GET', `${kind.path(ns)}?limit=1`);
  const rv = (JSON.parse(list.text) as { metadata: { resourceVersion: string } }).metadata.resourceVersion;
  const w = c.watchUntil(`${kind.path(ns)}?watch=1&resourceVersion=${rv}`, N);
  await w.opened;
  const { t0, lastAck } = await createAll(c, kind, ns);
  const tLive = await w.done;
  w.close();
  const w2 = c.watchUntil(`${kind.path(ns)}?watch=1`, N);
  const t1 = performance.now();
  const tInitial = await w2.done;
  w2.close();
  return { live: tLive - t0, tail: Math.max(0, tLive - lastAck), initial: tInitial - t1 };
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

async function main(): Promise<void> {
  const machine = machineInfo();
  const server = await startApiServer('embedded', null);
  const c = new Client(server);
  try {
    const ax = AX ?? (await discoverApiextensions(c));
    const crd = {
      apiVersion: `${ax}/v1`,
      kind: 'CustomResourceDefinition',
      metadata: { name: `widgets.${GROUP}` },
      spec: {
        group: GROUP,
        scope: 'Namespaced',
        names: { plural: 'widgets', kind: 'Widget' },
        versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: { payload: { type: 'string' } } } } } } }],
      },
    };
    const made = await c.request('POST', `/apis/${ax}/v1/customresourcedefinitions`, crd);
    if (made.status !== 201) throw new Error(`CRD: ${made.status} ${made.text}`);
    for (let i = 0; i < 200; i++) {
      if ((await c.request('GET', WIDGETS.path('default'))).status === 200) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    const results: Record<Kind['name'], Array<{ live: number; tail: number; initial: number }>> = { configmaps: [], 'custom resources': [] };
    for (let r = 0; r < ROUNDS; r++) {
      const order = r % 2 === 0 ? [CONFIGMAPS, WIDGETS] : [WIDGETS, CONFIGMAPS];
      for (const kind of order) {
        const res = await round(c, kind, r);
        results[kind.name].push(res);
        console.log(`  round ${r + 1} ${kind.name}: live ${res.live.toFixed(0)} ms (${Math.round(N / (res.live / 1000))} events/s), last ack to last event ${res.tail.toFixed(1)} ms, initial ${res.initial.toFixed(0)} ms`);
      }
    }
    const rows = (['configmaps', 'custom resources'] as const).map((k) => {
      const live = median(results[k].map((x) => x.live));
      const initial = median(results[k].map((x) => x.initial));
      const tail = median(results[k].map((x) => x.tail));
      return { k, live, tail, initial, rate: N / (live / 1000), initialRate: N / (initial / 1000) };
    });
    const lines = [
      '# Watch on custom resources vs ConfigMaps',
      '',
      '`npm run bench:crd` (loadtest/crd/watch.ts)',
      '',
      `- Machine: ${describeMachine(machine)}`,
      `- Server: ${describeServer()}; embedded store; default flags`,
      `- Load average at the end: ${os.loadavg()[0]!.toFixed(2)} (other processes share the machine: compare the two rows of one run, not runs)`,
      `- ${N.toLocaleString('en-US')} objects of ~200 bytes per kind and round, created ${CONCURRENCY} in flight on the uWS port (bearer token); ${ROUNDS} rounds, kinds alternating; medians`,
      '',
      '| kind | live: first create to last ADDED | events/s (bound by the creates) | last create acknowledged to last ADDED | initial events (watch without resourceVersion) | events/s |',
      '|---|---|---|---|---|---|',
      ...rows.map((r) => `| ${r.k} | ${r.live.toFixed(0)} ms | ${Math.round(r.rate).toLocaleString('en-US')} | ${r.tail.toFixed(1)} ms | ${r.initial.toFixed(0)} ms | ${Math.round(r.initialRate).toLocaleString('en-US')} |`),
      '',
      `Custom resources / ConfigMaps: live ${(rows[1]!.rate / rows[0]!.rate * 100).toFixed(0)}%, initial ${(rows[1]!.initialRate / rows[0]!.initialRate * 100).toFixed(0)}% of the ConfigMaps' events/s.`,
      '',
    ];
    const out = `${REPO_ROOT}/loadtest/results/crd-watch.md`;
    writeFileSync(out, lines.join('\n'));
    console.log(lines.join('\n'));
    console.log(`written to ${out}`);
  } finally {
    await server.stop();
    await stopEverything();
  }
}

/** The apiextensions group of the server's flavor, from discovery. */
async function discoverApiextensions(c: Client): Promise<string> {
  const r = await c.request('GET', '/apis');
  const groups = (JSON.parse(r.text) as { groups: Array<{ name: string }> }).groups.map((g) => g.name);
  const g = groups.find((n) => n.startsWith('apiextensions.'));
  if (g === undefined) throw new Error('no apiextensions group served');
  return g;
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
