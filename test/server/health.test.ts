/**
 * /healthz, /livez, /readyz through the chain: the exact texts of
 * k8s.io/apiserver pkg/server/healthz (verbose, exclude, failures, single
 * checks), 404 for unknown checks, and readyz failing at once on shutdown.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createHarness, type Harness } from './harness.ts';
import { HealthChecks } from '../../src/server/health/index.ts';

function setup(): { h: Harness; storage: { down: boolean } } {
  const h = createHarness();
  const storage = { down: false };
  h.health.add('healthz', 'etcd', async () => {
    if (storage.down) throw new Error('dial tcp 10.0.0.5:2379: connection refused');
  });
  h.health.add('readyz', 'informer-sync', () => {});
  h.health.add('readyz', 'poststarthook/start-informers', () => {});
  h.health.add('livez', 'log', () => {});
  return { h, storage };
}

const get = (h: Harness, url: string) => h.send('GET', url, { token: 'alice-token' });

describe('health endpoints', () => {
  it('answers plain "ok" without verbose', async () => {
    const { h } = setup();
    for (const path of ['/healthz', '/livez', '/readyz']) {
      const res = await get(h, path);
      assert.equal(res.status, 200, path);
      assert.equal(res.text, 'ok', path);
      assert.equal(res.header('content-type'), 'text/plain; charset=utf-8');
    }
  });

  it('lists every check of the endpoint in order with ?verbose', async () => {
    const { h } = setup();
    assert.equal(
      (await get(h, '/readyz?verbose')).text,
      '[+]ping ok\n[+]etcd ok\n[+]informer-sync ok\n[+]poststarthook/start-informers ok\n[+]shutdown ok\nreadyz check passed\n',
    );
    assert.equal((await get(h, '/livez?verbose')).text, '[+]ping ok\n[+]etcd ok\n[+]log ok\nlivez check passed\n');
    assert.equal((await get(h, '/healthz?verbose')).text, '[+]ping ok\n[+]etcd ok\nhealthz check passed\n');
  });

  it('shows excluded checks as "excluded: ok" and warns about unknown ones', async () => {
    const { h, storage } = setup();
    storage.down = true; // excluded, so its failure does not count
    const res = await get(h, '/readyz?verbose&exclude=etcd&exclude=nope&exclude=alpha');
    assert.equal(res.status, 200);
    assert.equal(
      res.text,
      '[+]ping ok\n[+]etcd excluded: ok\n[+]informer-sync ok\n[+]poststarthook/start-informers ok\n[+]shutdown ok\n' +
        'warn: some health checks cannot be excluded: no matches for "alpha","nope"\n' +
        'readyz check passed\n',
    );
  });

  it('fails with 500, withholds the reason, and is verbose on failure even without ?verbose', async () => {
    const { h, storage } = setup();
    storage.down = true;
    const res = await get(h, '/livez');
    assert.equal(res.status, 500);
    assert.equal(res.text, '[+]ping ok\n[-]etcd failed: reason withheld\n[+]log ok\nlivez check failed\n');
    assert.ok(!res.text.includes('10.0.0.5'));
    const logged = h.logs.find((l) => l['msg'] === 'livez check failed');
    assert.match(String(logged?.['detail']), /connection refused/, 'the reason goes to the log');
  });

  it('runs a single check at /<endpoint>/<check>', async () => {
    const { h, storage } = setup();
    const ok = await get(h, '/livez/etcd');
    assert.equal(ok.status, 200);
    assert.equal(ok.text, 'ok');
    assert.equal((await get(h, '/readyz/poststarthook/start-informers')).text, 'ok');
    storage.down = true;
    const failed = await get(h, '/readyz/etcd');
    assert.equal(failed.status, 500);
    assert.equal(failed.text, 'internal server error: dial tcp 10.0.0.5:2379: connection refused\n');
  });

  it('answers 404 for a check the endpoint does not have', async () => {
    const { h } = setup();
    const unknown = await get(h, '/livez/nope');
    assert.equal(unknown.status, 404);
    assert.equal(unknown.json()['reason'], 'NotFound');
    // informer-sync is a readyz check only
    assert.equal((await get(h, '/livez/informer-sync')).status, 404);
    assert.equal((await get(h, '/readyz/informer-sync')).status, 200);
  });

  it('fails /readyz at once on shutdown while /livez and /healthz stay ok', async () => {
    const { h } = setup();
    h.health.markShuttingDown();
    const ready = await get(h, '/readyz');
    assert.equal(ready.status, 500);
    assert.equal(
      ready.text,
      '[+]ping ok\n[+]etcd ok\n[+]informer-sync ok\n[+]poststarthook/start-informers ok\n[-]shutdown failed: reason withheld\nreadyz check failed\n',
    );
    assert.equal((await get(h, '/readyz/shutdown')).text, 'internal server error: process is shutting down\n');
    assert.equal((await get(h, '/livez')).status, 200);
    assert.equal((await get(h, '/healthz')).status, 200);
  });

  it('refuses duplicate and reserved check names', () => {
    const checks = new HealthChecks();
    assert.throws(() => checks.add('livez', 'ping', () => {}), /already registered/);
    assert.throws(() => checks.add('readyz', 'shutdown', () => {}), /reserved/);
    checks.add('readyz', 'shards', () => {});
    assert.throws(() => checks.add('healthz', 'shards', () => {}), /already registered for \/readyz/);
  });
});
