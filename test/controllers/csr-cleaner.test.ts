/**
 * The CSR cleaner, the garbage-collection rows of spec 3.2, on a real server
 * with a cleaner whose clock the test moves: approved, denied and failed
 * requests go 1 hour after their condition's last update, pending ones 24
 * hours after creation, issued ones as soon as their certificate expires,
 * and none earlier.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from '../support/test-server.ts';
import { names } from '../../src/naming/index.ts';
import { CsrCleaner, csrDeadline } from '../../src/controllers/csr-cleaner.ts';
import { CSRS, b64, csrBody, makeCsr, quiet, selfSignedPem, sleep, waitFor } from './support.ts';

let ts: TestServer;
let offset = 0;
let cleaner: CsrCleaner;
before(async () => {
  // The server's own cleaner is off: the test's, with a movable clock, is the only one.
  ts = await startTestServer(['--controllers=*,-csrcleaner', '--leader-elect=false']);
  cleaner = new CsrCleaner({ store: ts.server.store, registry: ts.server.registry, log: quiet, now: () => Date.now() + offset });
  await cleaner.start();
});
after(async () => {
  cleaner?.stop();
  await ts?.stop();
});

const MIN = 60_000;
const HOUR = 60 * MIN;
const nowText = (): string => new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');

async function exists(name: string): Promise<boolean> {
  const res = await ts.request('GET', `${CSRS}/${name}`);
  return res.status === 200;
}

/** Requests for a custom signer, which no controller signs: the test moves them itself. */
const CUSTOM_SIGNER = 'example.com/test';

async function create(name: string, signer = CUSTOM_SIGNER): Promise<Record<string, unknown>> {
  const { pem } = await makeCsr(`CN=${name}`);
  const res = await ts.request('POST', CSRS, csrBody(name, pem, signer, ['digital signature', 'client auth']));
  assert.equal(res.status, 201, res.body);
  return res.json();
}

async function setConditions(name: string, sub: 'approval' | 'status', conditions: unknown[], certificate?: string): Promise<void> {
  const cur = (await ts.request('GET', `${CSRS}/${name}`)).json<Record<string, unknown>>();
  const status: Record<string, unknown> = { ...((cur['status'] as object) ?? {}), conditions };
  if (certificate !== undefined) status['certificate'] = b64(certificate);
  const res = await ts.request('PUT', `${CSRS}/${name}/${sub}`, { ...cur, status });
  assert.equal(res.status, 200, res.body);
}

/** Moves the cleaner's clock, has it look at every request, and waits until it has. */
async function at(ms: number): Promise<void> {
  offset = ms;
  cleaner.sweep();
  await cleaner.drained();
}

describe('CSR cleaner (spec 3.2)', () => {
  it('deletes each state at its deadline and not before', async () => {
    const now = new Date();
    await create('pending');
    await create('approved');
    await setConditions('approved', 'approval', [{ type: 'Approved', status: 'True', reason: 'Test', lastUpdateTime: nowText() }]);
    await create('denied');
    await setConditions('denied', 'approval', [{ type: 'Denied', status: 'True', reason: 'Test', lastUpdateTime: nowText() }]);
    await create('failed');
    await setConditions('failed', 'approval', [{ type: 'Approved', status: 'True', reason: 'Test', lastUpdateTime: nowText() }]);
    await setConditions('failed', 'status', [
      { type: 'Approved', status: 'True', reason: 'Test', lastUpdateTime: nowText() },
      { type: 'Failed', status: 'True', reason: 'SignerValidationFailure', lastUpdateTime: nowText() },
    ]);
    // Issued by the built-in client signer (its certificate lives a year).
    await create('issued', names.signers.apiServerClient);
    await setConditions('issued', 'approval', [{ type: 'Approved', status: 'True', reason: 'Test', lastUpdateTime: nowText() }]);
    await waitFor(async () => (await ts.request('GET', `${CSRS}/issued`)).json<{ status: { certificate?: string } }>().status.certificate !== undefined, 'the signed certificate');
    // Issued by hand with a certificate that expired yesterday.
    const expired = await selfSignedPem(new Date(now.getTime() - 48 * HOUR), new Date(now.getTime() - 24 * HOUR));
    await create('issued-expired');
    await setConditions('issued-expired', 'approval', [{ type: 'Approved', status: 'True', reason: 'Test', lastUpdateTime: nowText() }]);
    const cur = (await ts.request('GET', `${CSRS}/issued-expired`)).json<{ status: { conditions: unknown[] } }>();
    await setConditions('issued-expired', 'status', cur.status.conditions, expired);
    const all = ['pending', 'approved', 'denied', 'failed', 'issued', 'issued-expired'];
    // The cleaner's copy has every request in its last state.
    await sleep(500);

    // any | issued certificate expires -> deleted (at once).
    await at(0);
    await waitFor(async () => !(await exists('issued-expired')), 'the expired certificate request deleted');
    for (const n of all.filter((n) => n !== 'issued-expired')) assert.equal(await exists(n), true, n);

    // approved, denied, failed | no change for 1 hour -> deleted; not at 59 minutes.
    await at(59 * MIN);
    for (const n of ['pending', 'approved', 'denied', 'failed', 'issued']) assert.equal(await exists(n), true, n);
    await at(HOUR + MIN);
    for (const n of ['approved', 'denied', 'failed', 'issued']) await waitFor(async () => !(await exists(n)), `${n} deleted`);

    // pending | no change for 24 hours -> deleted; not at 23 hours.
    await at(23 * HOUR);
    assert.equal(await exists('pending'), true);
    await at(24 * HOUR + MIN);
    await waitFor(async () => !(await exists('pending')), 'pending deleted');
    assert.equal(cleaner.deleted, 6);
  });

  it('computes no deadline for a request with nothing to time it by', () => {
    assert.equal(csrDeadline({ apiVersion: 'v1', kind: 'CertificateSigningRequest', metadata: { name: 'x' } }), undefined);
    const created = '2026-01-01T00:00:00Z';
    assert.equal(csrDeadline({ apiVersion: 'v1', kind: 'CertificateSigningRequest', metadata: { name: 'x', creationTimestamp: created } }), Date.parse(created) + 24 * HOUR);
  });
});
