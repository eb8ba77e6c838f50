/** Namespaces: Active with the `orch` finalizer on create, Terminating on delete, finalizers only via /finalize. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { namespaceStrategy } from '../../../src/registry/strategies/namespaces.ts';
import { ctx, lines } from './helpers.ts';
import type { KObject } from '../../../src/registry/object.ts';

function ns(spec?: Record<string, unknown>): KObject {
  return { kind: 'Namespace', metadata: { name: 'team-a' }, ...(spec ? { spec } : {}) };
}

describe('namespaces', () => {
  it('start Active with the orch finalizer whatever the client sent', () => {
    const n = ns();
    n['status'] = { phase: 'Terminating' };
    namespaceStrategy.defaults?.(n);
    namespaceStrategy.prepareForCreate?.(n, ctx());
    assert.deepEqual(n['status'], { phase: 'Active' });
    assert.deepEqual(n['spec'], { finalizers: ['orch'] });
  });

  it('keep client finalizers and add orch once', () => {
    const n = ns({ finalizers: ['example.com/cleanup', 'orch'] });
    namespaceStrategy.defaults?.(n);
    namespaceStrategy.prepareForCreate?.(n, ctx());
    assert.deepEqual((n['spec'] as Record<string, unknown>)['finalizers'], ['example.com/cleanup', 'orch']);
    const m = ns({ finalizers: ['example.com/cleanup'] });
    namespaceStrategy.defaults?.(m);
    namespaceStrategy.prepareForCreate?.(m, ctx());
    assert.deepEqual((m['spec'] as Record<string, unknown>)['finalizers'], ['example.com/cleanup', 'orch']);
  });

  it('refuse a bare finalizer name that is not a standard one', () => {
    assert.deepEqual(lines(namespaceStrategy.validate!(ns({ finalizers: ['cleanup', 'orch'] }), ctx())), [
      'spec.finalizers: Invalid value: "cleanup": name is neither a standard finalizer name nor is it fully qualified',
    ]);
  });

  it('ignore finalizer and status changes on a plain update', () => {
    const old: KObject = { ...ns({ finalizers: ['orch'] }), status: { phase: 'Active' } };
    const next: KObject = { ...ns({ finalizers: [] }), status: { phase: 'Terminating' }, metadata: { name: 'team-a', labels: { a: 'b' } } };
    namespaceStrategy.defaults?.(next);
    namespaceStrategy.prepareForUpdate?.(next, old, ctx());
    assert.deepEqual(next['spec'], { finalizers: ['orch'] });
    assert.deepEqual(next['status'], { phase: 'Active' });
  });

  it('let /finalize change the finalizers only', () => {
    const old: KObject = { ...ns({ finalizers: ['orch'] }), status: { phase: 'Terminating' } };
    const next: KObject = { ...ns({ finalizers: [] }), status: { phase: 'Active' } };
    namespaceStrategy.defaults?.(next);
    namespaceStrategy.prepareForUpdate?.(next, old, ctx('finalize'));
    assert.deepEqual(next['spec'], { finalizers: [] });
    assert.deepEqual(next['status'], { phase: 'Terminating' });
  });

  it('turn Terminating when deletion has to wait', () => {
    const n: KObject = { ...ns({ finalizers: ['orch'] }), status: { phase: 'Active' } };
    namespaceStrategy.prepareForDelete!(n, ctx());
    assert.deepEqual(n['status'], { phase: 'Terminating' });
  });

  it('keep the phase in step with deletion on /status', () => {
    const live: KObject = { ...ns(), status: { phase: 'Terminating' } };
    assert.deepEqual(lines(namespaceStrategy.validateUpdate!(live, live, ctx('status'))), [
      "status.Phase: Invalid value: \"Terminating\": may only be 'Active' if `deletionTimestamp` is empty",
    ]);
    const deleted: KObject = { ...ns(), metadata: { name: 'team-a', deletionTimestamp: '2025-01-01T00:00:00Z' }, status: { phase: 'Terminating' } };
    assert.deepEqual(namespaceStrategy.validateUpdate!(deleted, deleted, ctx('status')), []);
  });

  it('answer a delete with the namespace', () => {
    assert.equal(namespaceStrategy.returnDeletedObject, true);
  });
});
