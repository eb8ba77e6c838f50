/**
 * Query parameters read as the original reads them (strconv.ParseInt for
 * integers, Go's string-to-bool, meta/v1 validation of dryRun,
 * fieldManager, propagationPolicy), and watch timeouts that outlast
 * setTimeout's 32-bit range.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { StatusError } from '../../src/api/status.ts';
import { checkDryRun, checkFieldManager, checkFieldValidation, checkPropagationPolicy, decodeListIntegers, goBool, parseGoInt64 } from '../../src/api/query-params.ts';
import { planWatch } from '../../src/endpoints/watch-handler.ts';
import { watchTimeoutMs } from '../../src/server/filters/with-timeout.ts';
import { startTestServer, type TestServer } from '../support/test-server.ts';

function statusOf(fn: () => unknown): { code: number; reason: string; message: string } {
  try {
    fn();
  } catch (err) {
    assert.ok(err instanceof StatusError, String(err));
    return { code: err.code, reason: err.reason, message: err.message };
  }
  assert.fail('expected a StatusError');
}

describe('integers as strconv.ParseInt(v, 10, 64)', () => {
  it('accepts signs and the int64 range', () => {
    assert.equal(parseGoInt64('+5'), 5);
    assert.equal(parseGoInt64('-5'), -5);
    assert.equal(parseGoInt64('9223372036854775807'), 9223372036854775807);
  });

  it('answers 400 with strconv\'s message for garbage, empty and out-of-range values', () => {
    assert.deepEqual(statusOf(() => parseGoInt64('abc')), { code: 400, reason: 'BadRequest', message: 'strconv.ParseInt: parsing "abc": invalid syntax' });
    assert.equal(statusOf(() => parseGoInt64('')).message, 'strconv.ParseInt: parsing "": invalid syntax');
    assert.equal(statusOf(() => parseGoInt64('1.5')).message, 'strconv.ParseInt: parsing "1.5": invalid syntax');
    assert.equal(statusOf(() => parseGoInt64('9223372036854775808')).message, 'strconv.ParseInt: parsing "9223372036854775808": value out of range');
  });

  it('reads only the first of repeated values, for limit and timeoutSeconds alike', () => {
    assert.deepEqual(decodeListIntegers(new URLSearchParams('limit=3&limit=abc&timeoutSeconds=7&timeoutSeconds=x')), { limit: 3, timeoutSeconds: 7 });
    assert.equal(statusOf(() => decodeListIntegers(new URLSearchParams('timeoutSeconds=abc'))).code, 400);
  });
});

describe('booleans as Go reads them', () => {
  it('only "0" and "false" (any case) are false', () => {
    for (const v of ['0', 'false', 'FALSE', 'False']) assert.equal(goBool(v), false, v);
    for (const v of ['1', 'true', '', 'yes', 'abc']) assert.equal(goBool(v), true, v);
  });

  it('sendInitialEvents present (even empty) asks for initial events', () => {
    assert.equal(statusOf(() => planWatch(new URLSearchParams('sendInitialEvents='))).code, 400); // needs resourceVersionMatch
    const plan = planWatch(new URLSearchParams('sendInitialEvents=yes&allowWatchBookmarks=on&resourceVersionMatch=NotOlderThan'));
    assert.equal(plan.initialEventsEnd, true);
  });
});

describe('write options as meta/v1 validation reports them', () => {
  it('dryRun: only All, as 422 on the options kind', () => {
    assert.equal(checkDryRun('CreateOptions', []), false);
    assert.equal(checkDryRun('CreateOptions', ['All', 'All']), true);
    const s = statusOf(() => checkDryRun('CreateOptions', ['All', 'Bogus']));
    assert.equal(s.code, 422);
    assert.equal(s.message, 'CreateOptions.meta.orch.io "" is invalid: dryRun: Unsupported value: []string{"All", "Bogus"}: supported values: "All"');
    assert.equal(statusOf(() => checkDryRun('DeleteOptions', [''])).code, 422);
  });

  it('fieldManager: at most 128 bytes, printable', () => {
    checkFieldManager('UpdateOptions', 'x'.repeat(128));
    checkFieldManager('UpdateOptions', 'kubectl-édition');
    assert.equal(statusOf(() => checkFieldManager('UpdateOptions', 'x'.repeat(129))).message, 'UpdateOptions.meta.orch.io "" is invalid: fieldManager: Too long: may not be more than 128 bytes');
    assert.equal(statusOf(() => checkFieldManager('PatchOptions', 'a\u0007b')).message, 'PatchOptions.meta.orch.io "" is invalid: fieldManager: Invalid value: "a\\ab": invalid character U+0007 (at position 1)');
  });

  it('fieldValidation: one of the four values', () => {
    checkFieldValidation('CreateOptions', 'Strict');
    assert.equal(statusOf(() => checkFieldValidation('CreateOptions', 'Lenient')).message, 'CreateOptions.meta.orch.io "" is invalid: fieldValidation: Unsupported value: "Lenient": supported values: "", "Ignore", "Strict", "Warn"');
  });

  it('propagationPolicy', () => {
    assert.equal(checkPropagationPolicy('Orphan'), 'Orphan');
    assert.equal(statusOf(() => checkPropagationPolicy('Later')).message, 'DeleteOptions.meta.orch.io "" is invalid: propagationPolicy: Unsupported value: "Later": supported values: "Foreground", "Background", "Orphan", "nil"');
  });
});

describe('watch duration', () => {
  it('follows the original: timeoutSeconds when non-zero, else random in [min, 2min)', () => {
    assert.equal(watchTimeoutMs(new URLSearchParams('timeoutSeconds=2147484'), 1800), 2_147_484_000);
    assert.equal(watchTimeoutMs(new URLSearchParams('timeoutSeconds=-3'), 1800), 0);
    assert.equal(watchTimeoutMs(new URLSearchParams('timeoutSeconds=0'), 1800, () => 0.5), 2_700_000);
    assert.equal(watchTimeoutMs(new URLSearchParams(''), 0), undefined);
  });
});

describe('query parameters end to end', () => {
  let t: TestServer;
  const NS = '/api/v1/namespaces/default/configmaps';
  before(async () => {
    t = await startTestServer();
  });
  after(async () => {
    await t?.stop();
  });

  it('a LIST with timeoutSeconds=abc is 400 with strconv\'s message', async () => {
    const res = await t.request('GET', `${NS}?timeoutSeconds=abc`);
    assert.equal(res.status, 400);
    assert.equal(res.json()['message'], 'strconv.ParseInt: parsing "abc": invalid syntax');
    assert.equal((await t.request('GET', `${NS}?limit=1x`)).status, 400);
    assert.equal((await t.request('GET', `${NS}?limit=-1`)).status, 200, 'limit <= 0 is no limit');
  });

  it('a watch with timeoutSeconds past setTimeout\'s range stays open and delivers events', async () => {
    for (const uws of [false, true]) {
      if (uws && t.uwsPort === null) continue;
      const name = `long-${uws ? 'uws' : 'node'}`;
      const w = await t.watch(`${NS}?watch=1&timeoutSeconds=2147484`, uws ? { as: 'token', uws } : {});
      try {
        assert.equal(w.status, 200);
        await new Promise((r) => setTimeout(r, 200));
        assert.equal(w.ended, false, 'the watch must not end at once');
        assert.equal((await t.request('POST', NS, { metadata: { name } })).status, 201);
        await w.until(() => w.events.some((e) => e.object.metadata.name === name), 'the ADDED event');
        assert.equal(w.ended, false);
      } finally {
        w.close();
      }
    }
  });

  it('write options: bad dryRun and fieldManager are 422, garbage gracePeriodSeconds is 400, force=yes is true', async () => {
    const bad = await t.request('POST', `${NS}?dryRun=Bogus`, { metadata: { name: 'dr' } });
    assert.equal(bad.status, 422);
    assert.equal(bad.json()['reason'], 'Invalid');
    assert.equal((await t.request('POST', `${NS}?fieldManager=${'m'.repeat(129)}`, { metadata: { name: 'fm' } })).status, 422);
    assert.equal((await t.request('GET', `${NS}/dr`)).status, 404, 'nothing was created');
    assert.equal((await t.request('POST', NS, { metadata: { name: 'gp' } })).status, 201);
    const grace = await t.request('DELETE', `${NS}/gp?gracePeriodSeconds=soon`);
    assert.equal(grace.status, 400);
    assert.equal(grace.json()['message'], 'strconv.ParseInt: parsing "soon": invalid syntax');
    const policy = await t.request('DELETE', `${NS}/gp?propagationPolicy=Later`);
    assert.equal(policy.status, 422);
    const both = await t.request('DELETE', `${NS}/gp?propagationPolicy=Orphan&orphanDependents=true`);
    assert.equal(both.status, 422);
    assert.equal(both.json()['message'], 'DeleteOptions.meta.orch.io "" is invalid: propagationPolicy: Invalid value: "Orphan": orphanDependents and deletionPropagation cannot be both set');
    assert.equal((await t.request('POST', `${NS}?fieldValidation=Lenient`, { metadata: { name: 'fv' } })).status, 422);
    // deletecollection decodes ListOptions first: nothing is deleted on a malformed limit.
    assert.equal((await t.request('POST', NS, { metadata: { name: 'keep-me' } })).status, 201);
    assert.equal((await t.request('DELETE', `${NS}?limit=all`)).status, 400);
    assert.equal((await t.request('GET', `${NS}/keep-me`)).status, 200);
    assert.equal((await t.request('DELETE', `${NS}/gp?gracePeriodSeconds=99999999999`)).status, 200);
    // A grace period that puts the deletion time past year 9999 is refused, not a 500.
    const pods = '/api/v1/namespaces/default/pods';
    const pod = { metadata: { name: 'graceful' }, spec: { nodeName: 'node-1', containers: [{ name: 'c', image: 'busybox' }] } };
    assert.equal((await t.request('POST', pods, pod)).status, 201);
    const huge = await t.request('DELETE', `${pods}/graceful?gracePeriodSeconds=9223372036854775807`);
    assert.equal(huge.status, 422, huge.body);
    assert.match(String(huge.json()['message']), /^DeleteOptions\.meta\.orch\.io "" is invalid: gracePeriodSeconds: Invalid value/);
    // A negative grace period is 1 s for a scheduled pod (the original's pod strategy), not an immediate delete.
    const negative = await t.request('DELETE', `${pods}/graceful?gracePeriodSeconds=-5`);
    assert.equal(negative.status, 200);
    assert.equal(negative.json<{ metadata: { deletionGracePeriodSeconds?: number } }>().metadata.deletionGracePeriodSeconds, 1);
    const applied = await t.request('PATCH', `${NS}/ap?fieldManager=m&force=yes`, JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'ap' } }), {
      headers: { 'content-type': 'application/apply-patch+yaml' },
    });
    assert.equal(applied.status, 201, applied.body);
  });
});

describe('resource versions and list-only rules', () => {
  it('a uint64 version past 2^53 is a far-future version, not an error; past uint64 it is 400', async () => {
    const { parseResourceVersion, planList } = await import('../../src/endpoints/read-options.ts');
    assert.equal(parseResourceVersion('18446744073709551615'), Number.MAX_SAFE_INTEGER);
    assert.equal(statusOf(() => parseResourceVersion('18446744073709551616')).code, 400);
    assert.equal(statusOf(() => parseResourceVersion('-1')).code, 400);
    const tokens = {} as Parameters<typeof planList>[1];
    assert.deepEqual(statusOf(() => planList(new URLSearchParams('sendInitialEvents=true'), tokens)), {
      code: 400,
      reason: 'BadRequest',
      message: 'sendInitialEvents: Forbidden: sendInitialEvents is forbidden for list',
    });
  });
});
