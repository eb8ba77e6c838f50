/**
 * The etcd lease manager reuses one lease per TTL for writes close together
 * (5% of the TTL, at most 60 s, at most 1000 keys), so a burst of events costs
 * one grant, and never hands out a lease that would expire before the TTL.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { LeaseManager } from '../../src/storage/etcd/lease-manager.ts';

function manager(): { m: LeaseManager; grants: number[]; clock: { now: number } } {
  const grants: number[] = [];
  const clock = { now: 1_000_000 };
  const m = new LeaseManager(async (ttl) => {
    grants.push(ttl);
    return String(grants.length);
  }, () => clock.now);
  return { m, grants, clock };
}

test('one grant of ttl + reuse serves writes within the reuse window', async () => {
  const { m, grants, clock } = manager();
  const first = await m.leaseFor(3600);
  assert.deepEqual(grants, [3660]);
  clock.now += 59_000;
  assert.equal(await m.leaseFor(3600), first);
  // Past the reuse window the old lease would expire before this key's TTL: a new grant.
  clock.now += 2_000;
  assert.notEqual(await m.leaseFor(3600), first);
  assert.deepEqual(grants, [3660, 3660]);
});

test('concurrent writes share one grant; each TTL has its own lease', async () => {
  const { m, grants } = manager();
  const ids = await Promise.all([m.leaseFor(1000), m.leaseFor(1000), m.leaseFor(1000), m.leaseFor(200)]);
  assert.equal(new Set(ids.slice(0, 3)).size, 1);
  assert.notEqual(ids[3], ids[0]);
  assert.deepEqual(grants.sort((a, b) => a - b), [210, 1050]);
});

test('a lease carries at most 1000 keys; a forgotten lease is not reused', async () => {
  const { m, grants } = manager();
  const first = await m.leaseFor(3600);
  for (let i = 1; i < 1000; i++) assert.equal(await m.leaseFor(3600), first);
  const second = await m.leaseFor(3600);
  assert.notEqual(second, first);
  m.forget(second);
  assert.notEqual(await m.leaseFor(3600), second);
  assert.equal(grants.length, 3);
});

test('a TTL too short for reuse takes a lease per write, never one that expires early', async () => {
  const { m, grants } = manager();
  await m.leaseFor(4);
  await m.leaseFor(4);
  assert.deepEqual(grants, [4, 4]);
});
