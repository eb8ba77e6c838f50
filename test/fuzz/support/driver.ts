/**
 * Runs fuzz cases against a real server started in this process: in-process
 * through the request pipeline both front ends call (RunningServer.handler),
 * or over TLS to the secure port (HTTP/2) or the uWS listener
 * (HTTP/1.1). Each case has a deadline (a hang is a finding), its answer is
 * checked by the oracle, and a write that succeeded must read back through
 * JSON, Protobuf and Table.
 */
import { isDeepStrictEqual } from 'node:util';
import type { ClientHttp2Session } from 'node:http2';
import { readFile } from 'node:fs/promises';
import { decodeObject, supportsProtobuf } from '../../../src/protobuf/index.ts';
import { KUBERNETES_PROTOBUF_MEDIA_TYPE } from '../../../src/endpoints/negotiate.ts';
import type { RequestHandler } from '../../../src/server/http.ts';
import { h1Target, h2Target, type Target } from '../../frontends/support/clients.ts';
import { startTestServer, type TestServer } from '../../support/test-server.ts';
import { FuzzRequest, RecordingResponse } from './exchange.ts';
import { checkAnswer, type Answer } from './oracle.ts';
import { FUZZ_NAMESPACE, itemPath, TABLE_ACCEPT, TOKEN_PLACEHOLDER, type FuzzCase } from './requests.ts';

export type Transport = 'inprocess' | 'node' | 'uws';

/** The methods the uWS listener's parser takes (others reset the connection; README, listener limits). */
const UWS_METHODS: ReadonlySet<string> = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

export interface CaseResult {
  readonly problems: string[];
  /** The case could not be sent as generated (the HTTP client refused it); not a server finding. */
  readonly skipped: boolean;
}

/** What #send answers when node's HTTP/2 client refused a stream on its own (see run). */
const CLIENT_SESSION_SPENT = Symbol('client session spent');

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Rejects after `ms` with a "hang" error unless `p` settles first. */
async function within<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([p, new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new HangError(`${what} did not finish within ${ms} ms`)), ms)))]);
  } finally {
    clearTimeout(timer);
  }
}

export class HangError extends Error {}

function isResourcePath(url: string): boolean {
  return /^\/apis?(\/|$|\?)/.test(url);
}

export class FuzzTarget {
  readonly server: TestServer;
  readonly token: string;
  readonly #handler: RequestHandler;
  readonly #deadlineMs: number;
  readonly #ca: string;
  #node: (Target & { session: ClientHttp2Session }) | undefined;
  /** Client sessions the server sent a GOAWAY on. */
  readonly #goaways = new WeakSet<ClientHttp2Session>();
  #uws: Target | undefined;

  private constructor(server: TestServer, ca: string, deadlineMs: number) {
    this.server = server;
    this.token = server.server.files.adminToken;
    this.#handler = server.server.handler;
    this.#ca = ca;
    this.#deadlineMs = deadlineMs;
  }

  static async start(opts: { deadlineMs?: number } = {}): Promise<FuzzTarget> {
    const server = await startTestServer();
    const ca = await readFile(server.server.files.caCertPath, 'utf8');
    const t = new FuzzTarget(server, ca, opts.deadlineMs ?? 15_000);
    const ns = await t.inProcess('POST', '/api/v1/namespaces', JSON.stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: FUZZ_NAMESPACE } }));
    if (ns.status !== 201) throw new Error(`creating the fuzz namespace: ${ns.status} ${ns.body.toString()}`);
    return t;
  }

  /** Stops the server; a request that never finished (a hang finding) must not hold the process, so this is bounded. */
  async stop(): Promise<void> {
    this.#node?.close();
    this.#uws?.close();
    await within(this.server.stop(), 20_000, 'stopping the server').catch((err: unknown) => {
      process.stderr.write(`fuzz: ${err instanceof Error ? err.message : String(err)}\n`);
    });
  }

  /** A plain authenticated request through the pipeline (setup and read-back). */
  async inProcess(method: string, url: string, body?: string, accept = 'application/json'): Promise<Answer> {
    const headers: [string, string][] = [['authorization', `Bearer ${this.token}`], ['accept', accept]];
    if (body !== undefined) headers.push(['content-type', 'application/json']);
    const req = new FuzzRequest({ method, url, headers, body: new TextEncoder().encode(body ?? '') });
    const res = new RecordingResponse();
    await within(Promise.resolve(this.#handler(req, res)), this.#deadlineMs, `${method} ${url}`);
    return { status: res.status, contentType: res.header('content-type') ?? '', body: res.bytes };
  }

  /** Runs one case over `transport` and checks its answer and what it stored. */
  async run(c: FuzzCase, transport: Transport): Promise<CaseResult> {
    let answer: Answer & { violations: string[] };
    try {
      let got = await this.#send(c, transport);
      if (got === CLIENT_SESSION_SPENT) {
        // node's HTTP/2 client refused the stream itself (its session memory, see h2Target), with no GOAWAY
        // from the server: not a server finding. The case runs again on a new connection.
        this.#resetClient('node');
        got = await this.#send(c, transport);
        if (got === CLIENT_SESSION_SPENT) return { problems: ['transport error: a new HTTP/2 client session refused the stream at once'], skipped: false };
      }
      if (got === null) return { problems: [], skipped: true };
      answer = got;
    } catch (err) {
      if (err instanceof HangError) {
        // The stuck connection would hold up the next cases over this transport: start a fresh client.
        if (transport !== 'inprocess') this.#resetClient(transport);
        return { problems: [`hang: ${err.message}`], skipped: false };
      }
      return { problems: [`transport error: ${err instanceof Error ? `${(err as NodeJS.ErrnoException).code ?? ''} ${err.message}` : String(err)}`], skipped: false };
    }
    const verdict = checkAnswer(answer, {
      resourcePath: isResourcePath(c.url),
      apiPath: !/^\/(healthz|livez|readyz|metrics|openapi)(\/|\?|$)/.test(c.url),
      watch: c.watch,
      method: c.method.toUpperCase(),
      hasResourceVersion: /[?&]resourceVersion=/.test(c.url),
    });
    const problems = [...answer.violations, ...verdict.problems];
    if (problems.length === 0 && answer.status >= 200 && answer.status < 300) problems.push(...(await this.#readBack(c, verdict.json)));
    return { problems, skipped: false };
  }

  /** One attempt at a case; CLIENT_SESSION_SPENT when node's own client refused it (see run). */
  async #send(c: FuzzCase, transport: Transport): Promise<(Answer & { violations: string[] }) | null | typeof CLIENT_SESSION_SPENT> {
    const sent = transport === 'inprocess' ? this.#sendInProcess(c) : this.#sendHttp(c, transport);
    try {
      return await within(sent, this.#deadlineMs, `${c.method} ${c.url.slice(0, 200)}`);
    } catch (err) {
      const session = this.#node?.session;
      const refusedByClient = transport === 'node' && (err as NodeJS.ErrnoException).code === 'ERR_HTTP2_STREAM_ERROR' &&
        /ENHANCE_YOUR_CALM/.test((err as Error).message) && session !== undefined && !this.#goaways.has(session);
      if (refusedByClient) return CLIENT_SESSION_SPENT;
      throw err;
    }
  }

  /** Liveness: readyz answers ok and every shard thread answers. */
  async alive(): Promise<string[]> {
    const problems: string[] = [];
    try {
      const r = await this.inProcess('GET', '/readyz');
      if (r.status !== 200) problems.push(`readyz answered ${r.status}: ${r.body.toString().slice(0, 300)}`);
      await within(this.server.server.router.stats(), this.#deadlineMs, 'shard stats');
    } catch (err) {
      problems.push(`liveness: ${err instanceof Error ? err.message : String(err)}`);
    }
    return problems;
  }

  async #sendInProcess(c: FuzzCase): Promise<(Answer & { violations: string[] }) | null> {
    const req = new FuzzRequest({ method: c.method, url: c.url, headers: this.#headers(c), body: c.body?.bytes ?? new Uint8Array() });
    const res = new RecordingResponse();
    const done = this.#handler(req, res);
    const violations: string[] = [];
    if (c.watch) {
      // A watch runs until the client leaves: leave once it has answered (or shortly, if it has not yet).
      await Promise.race([res.started, sleep(200)]);
      if (!res.ended) {
        req.disconnect();
        res.disconnect();
      }
    }
    await done;
    // A watch the client left before it answered has nothing to check (the original's too-large resourceVersion waits, for one).
    if (c.watch && res.status === 0) return null;
    if (!res.ended && !res.closed) violations.push('the pipeline returned without ending the response');
    violations.push(...res.violations);
    return { status: res.status, contentType: res.header('content-type') ?? '', body: res.bytes, violations };
  }

  #headers(c: FuzzCase): [string, string][] {
    return c.headers.map(([k, v]) => [k, v.replace(TOKEN_PLACEHOLDER, this.token)]);
  }

  #resetClient(transport: 'node' | 'uws'): void {
    if (transport === 'node') {
      this.#node?.close();
      this.#node = undefined;
    } else {
      this.#uws?.close();
      this.#uws = undefined;
    }
  }

  #target(transport: 'node' | 'uws'): Target {
    const tls = { ca: this.#ca };
    if (transport === 'node') {
      const cur = this.#node;
      if (cur === undefined || cur.session.closed || cur.session.destroyed) {
        const next = h2Target('node', this.server.securePort, tls);
        // A GOAWAY from the server (ENHANCE_YOUR_CALM from its rapid-reset guard) makes refused streams a finding.
        next.session.on('goaway', () => this.#goaways.add(next.session));
        this.#node = next;
      }
      return this.#node!;
    }
    return (this.#uws ??= h1Target('uws', 'uws', this.server.uwsPort!, tls, 4));
  }

  async #sendHttp(c: FuzzCase, transport: 'node' | 'uws'): Promise<(Answer & { violations: string[] }) | null> {
    const headers: Record<string, string> = {};
    for (const [k, v] of this.#headers(c)) {
      // Connection-specific headers are not HTTP/2 headers; the client would refuse the request.
      if (['transfer-encoding', 'connection', 'expect', 'host'].includes(k)) continue;
      headers[k] = headers[k] === undefined ? v : `${headers[k]}, ${v}`;
    }
    if (transport === 'uws' && c.method === 'CONNECT') return null;
    // The uWS listener's compiled parser closes (or drops without a word) requests whose target is not a
    // plain origin-form path, and methods outside HTTP's usual set: limits the README states, for which it
    // points clients to the secure port. Not generated for it, so everything else it gets must be answered.
    if (transport === 'uws' && (!/^\/[\x21-\x7e]*$/.test(c.url) || !UWS_METHODS.has(c.method))) return null;
    const target = this.#target(transport);
    let res;
    try {
      const opened = target.open({ method: c.method, path: c.url, headers, ...(c.body === null ? {} : { body: c.body.bytes }) });
      if (transport === 'uws' && c.watch && /protobuf/i.test(headers['accept'] ?? '')) {
        // The uWS listener's stated limit (README): a Protobuf watch with nothing to send yet has no
        // filler that would carry the head, so the head waits for the first event. Not a hang.
        const first = await Promise.race([opened, sleep(2_000).then(() => null)]);
        if (first === null) {
          opened.then((r) => r.cancel(), () => {});
          this.#resetClient('uws');
          return null;
        }
      }
      res = await opened;
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code ?? '';
      // The client refusing what we generated (bad header chars, methods HTTP/2 forbids) is not a server finding.
      // nghttp2 resets a stream whose :path holds a space or non-ASCII or does not start with '/', or whose header values hold non-ASCII
      // (Go's HTTP/2 server answers both with a PROTOCOL_ERROR stream reset too, and so does ours, as it does a header
      // name that is not a token: node's client sends one as it is): not a finding either.
      const badPath = /[^\x21-\x7e]/.test(c.url) || !c.url.startsWith('/');
      const badHeader = c.headers.some(([n, v]) => /[^\x20-\x7e]/.test(v) || !/^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/.test(n));
      if (code === 'ERR_HTTP2_STREAM_ERROR' && (badPath || badHeader)) return null;
      if (/^ERR_(INVALID|HTTP2_INVALID|HTTP_INVALID|UNESCAPED)/.test(code) || code === 'ERR_HTTP2_CONNECT_PATH' || code === 'ERR_HTTP2_CONNECT_SCHEME' || code === 'ERR_HTTP2_CONNECT_AUTHORITY') return null;
      throw err;
    }
    const chunks: Buffer[] = [];
    if (c.watch && res.status < 300) {
      res.stream.on('data', (b: Buffer) => chunks.push(b));
      await sleep(50);
      res.cancel();
      res.stream.on('error', () => {});
    } else {
      for await (const chunk of res.stream) chunks.push(chunk as Buffer);
    }
    const ct = res.headers['content-type'];
    return { status: res.status, contentType: Array.isArray(ct) ? ct.join(', ') : (ct ?? ''), body: Buffer.concat(chunks), violations: [] };
  }

  /** A write that succeeded must read back as JSON, Protobuf (same object) and Table. */
  async #readBack(c: FuzzCase, written: Record<string, unknown> | undefined): Promise<string[]> {
    if (c.target === null || c.dryRun || written === undefined || !['POST', 'PUT', 'PATCH'].includes(c.method)) return [];
    if (written['kind'] === 'Status' || written['kind'] === 'Scale') return [];
    const meta = written['metadata'] as Record<string, unknown> | undefined;
    const name = meta?.['name'];
    if (typeof name !== 'string' || name === '') return [];
    // An update that takes the last finalizer off an object being deleted deletes it (and answers 200 with it).
    if (meta?.['deletionTimestamp'] !== undefined) return [];
    const { rt, namespace } = c.target;
    const url = itemPath(rt, namespace, name);
    const problems: string[] = [];
    // A controller may write the object between the two reads (the aggregation controller fills an aggregated
    // ClusterRole's rules: seed 11, case 746176): the representations are compared at one resourceVersion.
    for (let attempt = 1; ; attempt++) {
      const json = await this.inProcess('GET', url);
      if (json.status !== 200) return [`read-back: GET ${url} answered ${json.status} after a ${c.method} answered success: ${json.body.toString().slice(0, 300)}`];
      const stored = JSON.parse(json.body.toString('utf8')) as Record<string, unknown>;
      const storedMeta = stored['metadata'] as Record<string, unknown> | undefined;
      const uid = storedMeta?.['uid'];
      if (uid !== meta?.['uid']) return [`read-back: uid ${String(uid)} differs from the written ${String(meta?.['uid'])}`];
      if (!supportsProtobuf({ group: rt.group, version: rt.version, kind: rt.kind })) break;
      const pb = await this.inProcess('GET', url, undefined, KUBERNETES_PROTOBUF_MEDIA_TYPE);
      if (pb.status !== 200) {
        problems.push(`read-back: Protobuf GET answered ${pb.status}: ${pb.body.toString().slice(0, 300)}`);
        break;
      }
      try {
        const decoded = decodeObject(pb.body).object as Record<string, unknown>;
        const pbVersion = (decoded['metadata'] as Record<string, unknown> | undefined)?.['resourceVersion'];
        if (pbVersion !== storedMeta?.['resourceVersion'] && attempt < 3) continue;
        // Compared without empty strings, maps, lists and structs: Protobuf cannot tell empty from absent,
        // and that JSON keeps `""`/`{}`/`[]` where the original omits them is reported apart (fuzz-findings.md).
        const fromPb = withoutEmpties(JSON.parse(JSON.stringify(decoded)));
        const fromJson = withoutEmpties(stored);
        if (!isDeepStrictEqual(fromPb, fromJson)) problems.push(`read-back: Protobuf and JSON differ: ${firstDifference(fromPb, fromJson)}`);
      } catch (err) {
        problems.push(`read-back: Protobuf answer does not decode: ${err instanceof Error ? err.message : String(err)}`);
      }
      break;
    }
    const table = await this.inProcess('GET', url, undefined, TABLE_ACCEPT);
    if (table.status !== 200) problems.push(`read-back: Table GET answered ${table.status}: ${table.body.toString().slice(0, 300)}`);
    else {
      const t = JSON.parse(table.body.toString('utf8')) as Record<string, unknown>;
      if (t['kind'] !== 'Table' || !Array.isArray(t['rows']) || t['rows'].length !== 1) problems.push(`read-back: Table answer malformed: ${table.body.toString().slice(0, 300)}`);
    }
    return problems;
  }
}

/**
 * A JSON value with Go's zero values removed (recursively, bottom up): empty strings, objects and arrays,
 * nulls, 0 and false. The JSON representation keeps the fields as the client sent them, while Protobuf
 * follows Go's field presence (a value field's zero is not carried, or always is), so the two may differ
 * on zero values alone; they must agree on everything else. Explicit zeros of pointer fields (a
 * `replicas: 0`) are the Protobuf golden tests' business (src/protobuf/supplement/go-presence.ts).
 */
export function withoutEmpties(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(withoutEmpties);
  if (typeof v !== 'object' || v === null) return v;
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(v)) {
    const y = withoutEmpties(x);
    if (y === null || y === '' || y === 0 || y === false || (Array.isArray(y) && y.length === 0) || (typeof y === 'object' && y !== null && !Array.isArray(y) && Object.keys(y).length === 0)) continue;
    // Defined, not assigned: a `__proto__` key (legal JSON, kept by the server in free-form fields such as a
    // ControllerRevision's data) must stay an own property, not become the copy's prototype, which
    // isDeepStrictEqual compares by identity (fuzz seed 6, case 21433: a false "Protobuf and JSON differ").
    Object.defineProperty(out, k, { value: y, enumerable: true, writable: true, configurable: true });
  }
  return out;
}

/** The first path where two JSON values differ, with both sides (cut short). */
export function firstDifference(a: unknown, b: unknown, path = ''): string {
  const show = (v: unknown): string => (JSON.stringify(v) ?? 'undefined').slice(0, 120);
  if (typeof a !== typeof b || Array.isArray(a) !== Array.isArray(b) || a === null || b === null || typeof a !== 'object') {
    return isDeepStrictEqual(a, b) ? '' : `${path || '/'}: protobuf ${show(a)} vs json ${show(b)}`;
  }
  const ao = a as Record<string, unknown>;
  const bo = b as Record<string, unknown>;
  for (const k of new Set([...Object.keys(ao), ...Object.keys(bo)])) {
    const d = firstDifference(ao[k], bo[k], `${path}/${k}`);
    if (d !== '') return d;
  }
  return '';
}
