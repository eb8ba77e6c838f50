/**
 * Server-side apply onto a live object that holds what apply cannot key:
 * an associative list item without its key (a ServiceAccount's
 * `secrets: [{}]`, `[{namespace: x}]`, or `[null]` decoded to `{}`). Writes
 * other than apply store such objects (ownership bookkeeping never fails
 * them), and apply then threw a plain error from the merge: the generic
 * panic 500 of the seed-6 fuzz run (ServiceAccount, namespace `fuzz`,
 * cases 169762 and 185620, which depended on an earlier case's stored
 * object). The original answers its own 500 (reason unknown) naming the
 * live object and the path: "failed to create typed live object".
 *
 * Then a property: any sequence of updates and applies by several managers
 * on ServiceAccounts and Pods with hostile list items either succeeds or
 * throws a StatusError, never a plain error (fixed seed).
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { FieldManager } from '../../src/apply/field-manager.ts';
import { StatusError } from '../../src/api/status.ts';
import { servedSchemas } from '../../src/openapi/served-schemas.ts';
import type { KObject } from '../../src/registry/object.ts';
import { startTestServer } from '../support/test-server.ts';

const fm = new FieldManager(servedSchemas([]));
const NOW = new Date('2024-01-01T00:00:00Z');

function stored(obj: KObject): KObject {
  return { ...obj, metadata: { ...obj.metadata, uid: 'u-1', resourceVersion: '7', creationTimestamp: '2024-01-01T00:00:00Z' } };
}

function sa(extra: Record<string, unknown>): KObject {
  return { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'sa', namespace: 'fuzz' }, ...extra } as KObject;
}

const LIVE_ERROR = /^failed to create typed live object \(fuzz\/sa; \/v1, Kind=ServiceAccount\): \.secrets: element 0: associative list with keys has an element that omits all key fields \["name"\]/;

describe('apply onto a live object with keyless list items', () => {
  for (const [what, secrets] of [
    ['an empty item', [{}]],
    ['an item with only a namespace', [{ namespace: 'x' }]],
    ['a keyed item, then a keyless one', [{ name: 'a' }, {}]],
  ] as const) {
    it(`answers the original's 500 for ${what}, with or without secrets in the configuration`, () => {
      const live = stored(fm.update({ live: null, next: sa({ secrets }), manager: 'kubectl-create', now: NOW }));
      for (const config of [sa({}), sa({ secrets: [{ name: 'b' }] }), sa({ metadata: { name: 'sa', namespace: 'fuzz', labels: { a: 'b' } } })]) {
        assert.throws(
          () => fm.apply({ live, applied: config, manager: 'fuzz', now: NOW }),
          (err: unknown) => {
            assert.ok(err instanceof StatusError, `a StatusError, not ${String(err)}`);
            assert.equal(err.code, 500);
            assert.equal(err.reason, '');
            assert.match(err.message, what.startsWith('a keyed') ? /\.secrets: element 1: / : LIVE_ERROR);
            return true;
          },
        );
      }
    });
  }

  it('still applies onto duplicated keys (the original allows them in a live object)', () => {
    const live = stored(fm.update({ live: null, next: sa({ secrets: [{ name: 'a' }, { name: 'a' }] }), manager: 'kubectl-create', now: NOW }));
    const out = fm.apply({ live, applied: sa({ automountServiceAccountToken: false }), manager: 'fuzz', now: NOW });
    assert.equal((out as unknown as { automountServiceAccountToken: boolean }).automountServiceAccountToken, false);
  });
});

describe('apply and update sequences with hostile list items (property, seed 913)', () => {
  const item = fc.oneof(
    fc.constant({}),
    fc.constant(null),
    fc.record({ name: fc.constantFrom('a', 'b', '') }, { requiredKeys: [] }),
    fc.record({ namespace: fc.constant('x'), name: fc.constantFrom('a', 'c') }, { requiredKeys: [] }),
  );
  const list = fc.array(item, { maxLength: 3 });
  const saBody = fc.record(
    { secrets: list, imagePullSecrets: list, automountServiceAccountToken: fc.boolean(), labels: fc.dictionary(fc.constantFrom('a', 'b'), fc.constantFrom('x', 'y'), { maxKeys: 2 }) },
    { requiredKeys: [] },
  ).map(({ labels, ...rest }) => sa({ ...rest, metadata: { name: 'sa', namespace: 'fuzz', ...(labels ? { labels } : {}) } }));
  const podBody = fc.record(
    { imagePullSecrets: list, containers: fc.array(fc.oneof(item, fc.record({ name: fc.constantFrom('c', 'd'), image: fc.constant('i'), ports: fc.array(fc.record({ containerPort: fc.constantFrom(80, 81), protocol: fc.constantFrom('TCP', 'UDP') }, { requiredKeys: [] }), { maxLength: 2 }) })), { maxLength: 2 }) },
    { requiredKeys: [] },
  ).map(({ imagePullSecrets, containers }) => ({
    apiVersion: 'v1', kind: 'Pod', metadata: { name: 'sa', namespace: 'fuzz' },
    spec: { ...(imagePullSecrets ? { imagePullSecrets } : {}), ...(containers ? { containers } : {}) },
  }) as unknown as KObject);
  const op = (body: fc.Arbitrary<KObject>) => fc.record({ apply: fc.boolean(), manager: fc.constantFrom('m1', 'm2', 'm3'), force: fc.boolean(), body });

  for (const [kind, body] of [['ServiceAccount', saBody], ['Pod', podBody]] as const) {
    it(`${kind}: every step succeeds or throws a StatusError`, () => {
      fc.assert(
        fc.property(fc.array(op(body), { minLength: 1, maxLength: 6 }), (ops) => {
          let live: KObject | null = null;
          for (const o of ops) {
            try {
              const next = o.apply
                ? fm.apply({ live, applied: structuredClone(o.body), manager: o.manager, force: o.force, now: NOW })
                : fm.update({ live, next: structuredClone(o.body), manager: o.manager, now: NOW });
              live = stored(next);
            } catch (err) {
              if (!(err instanceof StatusError)) throw err;
              if (err.code === 500) assert.match(err.message, /^failed to (create typed live object|decode managed fields)/);
            }
          }
        }),
        { seed: 913, numRuns: 1500 },
      );
    });
  }
});

describe('through a started server', () => {
  it('an apply onto such a ServiceAccount is the original\'s 500, and works once a write fixes the list', async () => {
    const srv = await startTestServer();
    try {
      assert.equal((await srv.request('POST', '/api/v1/namespaces', { metadata: { name: 'fuzz' } })).status, 201);
      const created = await srv.request('POST', '/api/v1/namespaces/fuzz/serviceaccounts', { metadata: { name: 'sa' }, secrets: [{}] });
      assert.equal(created.status, 201, created.body);
      const apply = (): Promise<{ status: number; body: string; json: <T>() => T }> =>
        srv.request('PATCH', '/api/v1/namespaces/fuzz/serviceaccounts/sa?fieldManager=fuzz', 'apiVersion: v1\nkind: ServiceAccount\nmetadata:\n  name: sa\n  labels:\n    a: b\n', {
          headers: { 'content-type': 'application/apply-patch+yaml' },
        });
      const r = await apply();
      assert.equal(r.status, 500, r.body);
      const status = r.json<{ reason: string; message: string }>();
      assert.equal(status.reason, '');
      assert.match(status.message, LIVE_ERROR);
      const fixed = await srv.request('PATCH', '/api/v1/namespaces/fuzz/serviceaccounts/sa', { secrets: [{ name: 's' }] }, { headers: { 'content-type': 'application/merge-patch+json' } });
      assert.equal(fixed.status, 200, fixed.body);
      const again = await apply();
      assert.equal(again.status, 200, again.body);
      assert.deepEqual(again.json<{ metadata: { labels: Record<string, string> } }>().metadata.labels, { a: 'b' });
    } finally {
      await srv.stop();
    }
  });
});
