/**
 * Request logs: one JSON line per request with the fields operators need,
 * and never a credential (Authorization header values, token-like query
 * parameters), even when the request fails authentication.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createHarness } from './harness.ts';
import { loggableUri } from '../../src/server/filters/with-logging.ts';
import { createLogger } from '../../src/server/logging.ts';

describe('request logging', () => {
  it('writes one line per request with verb, URI, user, status, latency, agent, front end and protocol', async () => {
    const h = createHarness();
    await h.send('GET', '/api/v1/namespaces/default/pods?limit=5', { token: 'alice-token', protocol: 'h2', frontend: 'uws', remoteAddress: '10.1.2.3' });
    const lines = h.logs.filter((l) => l['msg'] === 'HTTP');
    assert.equal(lines.length, 1);
    const line = lines[0]!;
    assert.equal(line['level'], 30, 'info');
    assert.equal(line['verb'], 'list');
    assert.equal(line['method'], 'GET');
    assert.equal(line['uri'], '/api/v1/namespaces/default/pods?limit=5');
    assert.equal(line['user'], 'alice');
    assert.equal(line['status'], 200);
    assert.equal(typeof line['latencyMs'], 'number');
    assert.ok((line['latencyMs'] as number) >= 0);
    assert.equal(line['userAgent'], 'kubectl/v1.30 (test)');
    assert.equal(line['srcIP'], '10.1.2.3');
    assert.equal(line['frontend'], 'uws');
    assert.equal(line['protocol'], 'h2');
  });

  it('never logs the Authorization header or token-like query parameters', async () => {
    const h = createHarness();
    await h.send('GET', '/api/v1/namespaces/default/pods?limit=5&token=query-secret-1&access_token=query-secret-2', { token: 'alice-token' });
    await h.send('GET', '/api/v1/namespaces/default/pods?id_token=query-secret-3', {
      headers: { authorization: 'Bearer header-secret-4', cookie: 'session=cookie-secret-5' },
    });
    await h.send('GET', '/api/v1/pods', { token: 'explode' }); // an error log as well
    const all = h.rawLogs.join('');
    for (const secret of ['alice-token', 'query-secret-1', 'query-secret-2', 'query-secret-3', 'header-secret-4', 'cookie-secret-5', 'explode']) {
      assert.ok(!all.includes(secret), `log contains ${secret}`);
    }
    const http = h.logs.filter((l) => l['msg'] === 'HTTP');
    assert.equal(http.length, 3);
    assert.equal(http[0]!['uri'], '/api/v1/namespaces/default/pods?limit=5');
    assert.equal(http[1]!['status'], 401);
    assert.equal(http[1]!['user'], '');
    assert.equal(http[2]!['status'], 500);
  });

  it('logs a timed-out request with its 504 once', async () => {
    const h = createHarness({ requestTimeoutMs: 20 });
    await h.send('GET', '/api/v1/pods', { token: 'alice-token', test: 'slow' });
    const http = h.logs.filter((l) => l['msg'] === 'HTTP');
    assert.equal(http.length, 1);
    assert.equal(http[0]!['status'], 504);
  });
});

describe('loggableUri', () => {
  it('keeps ordinary parameters (continue tokens are not credentials) and drops credential-like ones', () => {
    assert.equal(loggableUri('/api/v1/pods', new URLSearchParams('')), '/api/v1/pods');
    assert.equal(loggableUri('/api/v1/pods', new URLSearchParams('limit=1&continue=abc')), '/api/v1/pods?limit=1&continue=abc');
    assert.equal(loggableUri('/x', new URLSearchParams('password=p&apiKey=k&key=k2&watch=1&client_secret=s')), '/x?watch=1');
  });
});

describe('createLogger redaction', () => {
  it('censors credential keys that reach a log call by accident', () => {
    const lines: string[] = [];
    const logger = createLogger({ level: 'info', destination: { write: (s: string) => void lines.push(s) } });
    logger.info({ authorization: 'Bearer a1', config: { token: 't2', password: 'p3', key: 'k4' }, headers: { authorization: 'Bearer h5' } }, 'x');
    const line = lines.join('');
    for (const secret of ['a1', 't2', 'p3', 'k4', 'h5']) assert.ok(!line.includes(`"${secret}"`) && !line.includes(`Bearer ${secret}`), line);
    assert.match(line, /\[REDACTED\]/);
  });
});
