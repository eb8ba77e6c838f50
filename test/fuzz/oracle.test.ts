/**
 * The oracle itself: the answers it must accept and the ones it must flag,
 * so a harness that passes everything (or nothing) shows up here first.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { checkAnswer, type AnswerContext } from './support/oracle.ts';
import { PANIC_MESSAGE } from '../../src/server/filters/write-status.ts';
import { applyMutations, DuplicateKeys, RawJson, toJsonText } from './support/mutate.ts';
import { isDeepStrictEqual } from 'node:util';
import { firstDifference, withoutEmpties } from './support/driver.ts';

const api: AnswerContext = { resourcePath: true, apiPath: true, watch: false, method: 'GET', hasResourceVersion: false };
const answer = (status: number, body: unknown, contentType = 'application/json') => ({ status, contentType, body: Buffer.from(typeof body === 'string' ? body : JSON.stringify(body)) });
const status = (code: number, reason: string, extra: Record<string, unknown> = {}) => ({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'm', reason, code, ...extra });

test('a well-formed Status and a typed object pass', () => {
  assert.deepEqual(checkAnswer(answer(404, status(404, 'NotFound')), api).problems, []);
  assert.deepEqual(checkAnswer(answer(422, status(422, 'Invalid')), api).problems, []);
  assert.deepEqual(checkAnswer(answer(200, { kind: 'Pod', apiVersion: 'v1', metadata: {} }), api).problems, []);
  assert.deepEqual(checkAnswer(answer(200, { kind: 'APIVersions', versions: ['v1'] }), api).problems, []);
});

test('malformed failures are flagged', () => {
  assert.ok(checkAnswer(answer(404, status(400, 'NotFound')), api).problems.some((p) => p.includes('differs from HTTP')));
  assert.ok(checkAnswer(answer(409, status(409, 'NotFound')), api).problems.some((p) => p.includes('does not go with')));
  assert.ok(checkAnswer(answer(400, status(400, '')), api).problems.some((p) => p.includes('does not go with')));
  assert.ok(checkAnswer(answer(400, status(400, 'Nope')), api).problems.some((p) => p.includes('unknown reason')));
  assert.ok(checkAnswer(answer(400, status(400, 'BadRequest', { message: '' })), api).problems.some((p) => p.includes('no message')));
  assert.ok(checkAnswer(answer(400, 'bad', 'text/plain'), api).problems.length >= 2);
  assert.ok(checkAnswer(answer(500, status(500, 'InternalError')), api).problems.some((p) => p.includes('server error')));
  assert.ok(checkAnswer(answer(500, status(500, '', { message: PANIC_MESSAGE })), api).problems.some((p) => p.includes('server error')));
  // The original's unconverted-error answer (reason "", its own message) is well-formed.
  assert.deepEqual(checkAnswer(answer(500, status(500, '', { message: 'map: map[$patch:delete] does not contain declared merge key: name' })), api).problems, []);
  assert.ok(checkAnswer(answer(302, ''), api).problems.some((p) => p.includes('unexpected HTTP status')));
});

test('504 Timeout passes only for a resourceVersion the store has not reached', () => {
  assert.ok(checkAnswer(answer(504, status(504, 'Timeout')), api).problems.length > 0);
  assert.deepEqual(checkAnswer(answer(504, status(504, 'Timeout')), { ...api, hasResourceVersion: true }).problems, []);
});

test('success bodies must be typed objects', () => {
  assert.ok(checkAnswer(answer(200, [1]), api).problems.length > 0);
  assert.ok(checkAnswer(answer(200, { apiVersion: 'v1' }), api).problems.some((p) => p.includes('no kind')));
  assert.ok(checkAnswer(answer(200, 'x', 'text/html'), api).problems.length > 0);
  assert.deepEqual(checkAnswer(answer(200, 'ok', 'text/plain'), { ...api, resourcePath: false, apiPath: false }).problems, []);
});

test('mutated JSON text carries what JSON.stringify cannot', () => {
  assert.equal(toJsonText({ a: new RawJson('9223372036854775808'), b: new DuplicateKeys([['k', 1], ['k', 'x']]) }), '{"a":9223372036854775808,"b":{"k":1,"k":"x"}}');
  const polluted = applyMutations({ metadata: { name: 'a' } }, [{ kind: 'addKey', at: 1, key: 0 }]);
  assert.match(toJsonText(polluted), /"__proto__":\{"polluted":true\}/);
  assert.equal(({} as Record<string, unknown>)['polluted'], undefined);
});

test('read-back comparison keeps a __proto__ key as an own property on both sides', () => {
  // Two separate parses of the same text, as the JSON and the Protobuf read-backs are.
  const text = '{"data":{"a":1,"__proto__":{"polluted":true},"e":""}}';
  const a = withoutEmpties(JSON.parse(text));
  const b = withoutEmpties(JSON.parse(text));
  assert.ok(isDeepStrictEqual(a, b));
  const data = (a as { data: Record<string, unknown> }).data;
  assert.equal(Object.getPrototypeOf(data), Object.prototype);
  assert.deepEqual(Object.keys(data), ['a', '__proto__']);
  const c = withoutEmpties(JSON.parse('{"data":{"a":1,"__proto__":{"polluted":false}}}'));
  assert.ok(!isDeepStrictEqual(a, c));
  assert.match(firstDifference(a, c), /__proto__/);
});
