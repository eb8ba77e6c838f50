/**
 * Metadata events written as encoded lines (src/audit/metadata-lines.ts) are
 * byte for byte what `eventJson` gives plus a newline, for every stage and
 * the fields that vary: impersonation (the user changes between stages),
 * forwarding headers, a user agent beyond ASCII, credentials in the query,
 * admission annotations, a client's audit ID. The bytes it keeps between
 * requests never carry one request's fields into another's line.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { RequestContext, type UserInfo } from '../../src/server/context.ts';
import { TrackedResponse } from '../../src/server/filters/tracked-response.ts';
import { parseRequestInfo } from '../../src/server/filters/with-request-info.ts';
import type { AuditRecord } from '../../src/audit/event.ts';
import { LineWriter } from '../../src/audit/lines.ts';
import { writeMetadataLine } from '../../src/audit/metadata-lines.ts';
import { eventJson } from '../../src/audit/serialize.ts';
import type { Stage } from '../../src/audit/types.ts';
import { names } from '../../src/naming/index.ts';
import { exchange } from '../server/fake-http.ts';

const ALICE: UserInfo = { name: 'alice', groups: ['devs', 'system:authenticated'] };
const BOB: UserInfo = { name: 'bob', uid: 'u-1', groups: ['ops'], extra: { scopes: ['a', 'b'] } };
const STAGES: readonly Stage[] = ['RequestReceived', 'ResponseStarted', 'ResponseComplete', 'Panic'];

interface Case {
  readonly method?: string;
  readonly url?: string;
  readonly headers?: Record<string, string>;
  readonly user?: UserInfo;
  readonly status?: number;
  readonly remote?: string;
  readonly annotate?: boolean;
  readonly deny?: boolean;
}

function record(c: Case): AuditRecord {
  const method = c.method ?? 'GET';
  const ex = exchange(method, c.url ?? '/api/v1/namespaces/default/configmaps/c1', { headers: c.headers ?? { 'user-agent': 'kubectl/v1.32' } });
  const ctx = new RequestContext(ex.req, new TrackedResponse(ex.res));
  ctx.info = parseRequestInfo(method, ex.req.path, ex.req.query);
  ctx.user = c.user ?? ALICE;
  ctx.status = c.status ?? 200;
  ctx.authorization = c.deny === true ? { decision: 'deny', reason: `RBAC: allowed for ${ctx.user.name}` } : { decision: 'allow', reason: `RBAC: allowed for ${ctx.user.name}` };
  if (c.annotate === true) {
    const s = names.apiGroupSuffix;
    ctx.annotate(`mutation.webhook.admission.${s}/round_0_index_0`, '{"configuration":"c","webhook":"w","mutated":true}');
    ctx.annotate(`patch.webhook.admission.${s}/round_0_index_0`, '{"patch":"secret-ish"}');
  }
  return { ctx, level: 'Metadata', omitManagedFields: false, receivedAt: 1_764_000_000_123, remoteAddress: c.remote ?? '127.0.0.1', requestBody: undefined, responseChunks: undefined, responseBytes: 0 };
}

/** The record without what writing it kept (so eventJson builds everything anew). */
function fresh(rec: AuditRecord): AuditRecord {
  return { ...rec, sharedPlain: undefined, sharedImpersonated: undefined, sharedPlainBytes: undefined, sharedImpersonatedBytes: undefined };
}

function line(rec: AuditRecord, stage: Stage, now: number, estimate = 900): string {
  const w = new LineWriter(estimate);
  writeMetadataLine(w, rec, stage, now);
  const out = w.take();
  assert.equal(out.count, 1);
  return Buffer.concat(out.chunks).toString('utf8');
}

function assertSame(rec: AuditRecord, what: string): void {
  for (const stage of STAGES) {
    const now = 1_764_000_001_456;
    // The string path first for one stage, the bytes first for another: neither memo may leak into the other.
    const expected = `${eventJson(fresh(rec), stage, now)}\n`;
    assert.equal(line(rec, stage, now), expected, `${what}, ${stage}`);
    // A buffer too small for the line: it goes on in a new buffer, same text.
    assert.equal(line(rec, stage, now, 1), expected, `${what}, ${stage}, small buffer`);
  }
}

test('a Metadata line is eventJson plus a newline, for every stage and varying field', () => {
  const cases: Record<string, Case> = {
    plain: {},
    'status 404': { status: 404 },
    'forbidden (the same reason text as an allowed one)': { status: 403, deny: true },
    'forwarded for': { headers: { 'x-forwarded-for': '10.1.2.3, 10.0.0.1', 'x-real-ip': '10.9.9.9', 'user-agent': 'ua' } },
    'no user agent': { headers: {} },
    'user agent beyond ASCII': { headers: { 'user-agent': 't\u00ebst-\u4e2d-\u{1F600}' } },
    'user agent with quotes, backslashes, controls and a lone surrogate': { headers: { 'user-agent': 'a"b\\c\u0001\t\ud800 "}\n' } },
    'a 200 KB user agent (never kept between requests)': { headers: { 'user-agent': `big-${'\u00e9x'.repeat(100_000)}` } },
    'credentials in the query': { url: '/api/v1/namespaces/default/configmaps?limit=5&token=s3cr3t&labelSelector=a%3Db' },
    'a list by field selector': { url: '/api/v1/namespaces/default/configmaps?fieldSelector=metadata.name%3Dc1' },
    'a non-resource path': { url: '/healthz' },
    'user with uid and extra': { user: BOB },
    'admission annotations (patches left out)': { method: 'POST', url: '/api/v1/namespaces/default/configmaps', status: 201, annotate: true },
    'a client audit ID': { headers: { 'audit-id': 'client-id.1:2_x' } },
    'IPv6-mapped peer': { remote: '::ffff:10.0.0.7' },
  };
  for (const [what, c] of Object.entries(cases)) assertSame(record(c), what);
});

test('impersonation after RequestReceived: later stages name both users; RequestReceived never does', () => {
  const rec = record({});
  const now = 1_764_000_001_456;
  const first = line(rec, 'RequestReceived', now);
  assert.equal(first, `${eventJson(fresh(rec), 'RequestReceived', now)}\n`);
  rec.ctx.impersonator = ALICE;
  rec.ctx.user = BOB;
  const later = line(rec, 'ResponseComplete', now);
  assert.equal(later, `${eventJson(fresh(rec), 'ResponseComplete', now)}\n`);
  assert.match(later, /"user":\{"username":"alice".*"impersonatedUser":\{"username":"bob"/);
  // Built after impersonation (batch mode builds events late), RequestReceived still names the caller alone.
  for (const r of [rec, fresh(rec)]) {
    const received = line(r, 'RequestReceived', now);
    assert.equal(received, first);
    assert.equal(`${eventJson(fresh(r), 'RequestReceived', now)}\n`, first);
    assert.doesNotMatch(received, /impersonatedUser/);
  }
});

test('parts kept between requests: equal inputs share them, any differing input gets its own', () => {
  const now = 1_764_000_001_456;
  const variants: Case[] = [
    {},
    { user: BOB },
    { headers: { 'user-agent': 'other' } },
    { headers: { 'user-agent': 'kubectl/v1.32', 'x-real-ip': '10.0.0.1' } },
    { remote: '127.0.0.2' },
    { url: '/api/v1/namespaces/default/configmaps/c2' },
    { url: '/api/v1/namespaces/default/configmaps/c1?pretty=true' },
    { method: 'DELETE' },
  ];
  // Twice round: the second time every line comes from kept parts.
  for (let round = 0; round < 2; round++) {
    for (const c of variants) {
      const rec = record(c);
      assert.equal(line(rec, 'ResponseComplete', now), `${eventJson(fresh(rec), 'ResponseComplete', now)}\n`, JSON.stringify(c));
    }
  }
  // A user agent that would read as another field were values simply joined.
  const a = record({ headers: { 'user-agent': 'x', 'x-forwarded-for': '10.0.0.1' } });
  const b = record({ headers: { 'user-agent': 'x10.0.0.1' } });
  assert.notEqual(line(a, 'ResponseComplete', now), line(b, 'ResponseComplete', now));
  assert.match(line(b, 'ResponseComplete', now), /"userAgent":"x10\.0\.0\.1"/);
});

test('many lines in one writer: each whole, in order', () => {
  const w = new LineWriter(2000);
  const recs = Array.from({ length: 120 }, (_, i) => record({ url: `/api/v1/namespaces/default/configmaps/c${i}` }));
  for (const r of recs) writeMetadataLine(w, r, 'ResponseComplete', 1_764_000_001_456);
  const out = w.take();
  assert.equal(out.count, 120);
  assert.ok(out.chunks.length > 1);
  const lines = Buffer.concat(out.chunks).toString('utf8').split('\n');
  assert.equal(lines.pop(), '');
  assert.deepEqual(
    lines.map((l) => (JSON.parse(l) as { objectRef: { name: string } }).objectRef.name),
    recs.map((_, i) => `c${i}`),
  );
});

test('timestamps: every millisecond form, seconds apart and alternating, as microTime prints them', () => {
  const base = 1_764_000_000_000;
  for (const now of [base, base + 7, base + 45, base + 999, base + 1000, base + 1, base + 2_000_010, base + 5, base - 86_400_000 + 99]) {
    const rec: AuditRecord = { ...record({}), receivedAt: now - 1 };
    for (const stage of ['RequestReceived', 'ResponseComplete'] as const) {
      assert.equal(line(rec, stage, now), `${eventJson(fresh(rec), stage, now)}\n`, `${now} ${stage}`);
    }
  }
});
