/** The allocation bitmap and the two range kinds mapped onto it: offsets, errors, snapshots. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { AllocationBitmap, staticSubrange } from '../../../src/registry/service-allocation/bitmap.ts';
import { AllocationError, NodePortRange, ServiceIPRange } from '../../../src/registry/service-allocation/ranges.ts';
import { bigIntToIP, ipToBigInt } from '../../../src/registry/service-allocation/ip.ts';

describe('allocation bitmap', () => {
  it('allocates each item once, releases, and counts', () => {
    const b = new AllocationBitmap(10);
    assert.equal(b.allocate(3), true);
    assert.equal(b.allocate(3), false);
    assert.equal(b.allocate(10), false, 'beyond the range');
    assert.equal(b.allocate(-1), false);
    assert.equal(b.count, 1);
    assert.equal(b.free(), 9);
    b.release(3);
    b.release(3);
    assert.equal(b.count, 0);
    assert.equal(b.has(3), false);
  });

  it('hands out every item once by random scan, then reports the range full', () => {
    const b = new AllocationBitmap(37);
    const seen = new Set<number>();
    for (let i = 0; i < 37; i++) {
      const at = b.allocateNext();
      assert.ok(at !== undefined && at >= 0 && at < 37);
      assert.ok(!seen.has(at), `offset ${at} handed out twice`);
      seen.add(at);
    }
    assert.equal(b.allocateNext(), undefined);
  });

  it('prefers the dynamic part above the offset, then falls back to the static part', () => {
    const b = new AllocationBitmap(40, 16);
    for (let i = 0; i < 24; i++) assert.ok(b.allocateNext()! >= 16, 'upper band first');
    for (let i = 0; i < 16; i++) assert.ok(b.allocateNext()! < 16, 'then the static band');
    assert.equal(b.allocateNext(), undefined);
  });

  it('snapshots as a big-endian integer without leading zeros (big.Int.Bytes), and restores', () => {
    const b = new AllocationBitmap(100);
    b.allocate(0);
    b.allocate(9);
    assert.deepEqual([...b.snapshot()], [0x02, 0x01]);
    assert.deepEqual([...new AllocationBitmap(100).snapshot()], []);
    const c = new AllocationBitmap(100);
    c.restore(b.snapshot());
    assert.ok(c.equals(b));
    assert.equal(c.count, 2);
    const small = new AllocationBitmap(4);
    small.restore(new Uint8Array([0xff]));
    assert.equal(small.count, 4, 'bits beyond the range are dropped');
  });

  it('behaves like a set under any sequence of operations (property)', () => {
    // A fixed seed: the same cases every run, so a red CI is a regression, not a new draw.
    fc.configureGlobal({ ...fc.readConfigureGlobal(), seed: 20261125 });
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 300 }),
        fc.array(fc.tuple(fc.constantFrom('alloc', 'next', 'release'), fc.nat(320)), { maxLength: 200 }),
        (max, ops) => {
          const b = new AllocationBitmap(max, Math.floor(max / 4));
          const model = new Set<number>();
          for (const [op, n] of ops) {
            if (op === 'alloc') assert.equal(b.allocate(n), n < max && !model.has(n) && (model.add(n), true));
            else if (op === 'release') {
              b.release(n);
              model.delete(n);
            } else {
              const at = b.allocateNext();
              if (model.size === max) assert.equal(at, undefined);
              else {
                assert.ok(at !== undefined && !model.has(at) && at < max);
                model.add(at);
              }
            }
          }
          assert.equal(b.count, model.size);
          const restored = new AllocationBitmap(max);
          restored.restore(b.snapshot());
          const items: number[] = [];
          restored.forEach((i) => items.push(i));
          assert.deepEqual(items, [...model].sort((x, y) => x - y));
        },
      ),
    );
  });

  it('sizes the static subrange as the original: min(max(16, size/step), upper)', () => {
    assert.equal(staticSubrange(254, 16, 256, 16), 16);
    assert.equal(staticSubrange(16, 16, 256, 16), 0);
    assert.equal(staticSubrange(65536, 16, 256, 16), 256);
    assert.equal(staticSubrange(2768, 16, 128, 32), 86);
  });
});

describe('service IP ranges', () => {
  it('skip the network and broadcast addresses of an IPv4 CIDR', () => {
    const r = ServiceIPRange.parse('10.0.0.0/24')!;
    assert.equal(r.size, 254);
    assert.equal(r.valueAt(0), '10.0.0.1');
    assert.equal(r.valueAt(253), '10.0.0.254');
    assert.equal(r.offsetOf('10.0.0.10'), 9);
    assert.equal(r.spec, '10.0.0.0/24');
    for (const bad of ['10.0.0.0', '10.0.0.255', '10.0.1.1', 'fd00::1', 'nope', 'fe80::%eth0', '010.0.0.1', '']) {
      assert.throws(
        () => r.offsetOf(bad),
        (err: unknown) => err instanceof AllocationError && err.kind === 'NotInRange' && err.message === 'provided IP is not in the valid range. The range of valid IPs is 10.0.0.0/24',
        bad,
      );
    }
    assert.equal(ServiceIPRange.parse('10.0.0.7/29')!.spec, '10.0.0.0/29', 'host bits are cleared');
  });

  it('cap IPv6 ranges at 65536 addresses and print addresses as Go does', () => {
    const r = ServiceIPRange.parse('fd00:10:96::/112')!;
    assert.equal(r.size, 65535);
    assert.equal(r.valueAt(0), 'fd00:10:96::1');
    assert.equal(r.offsetOf('fd00:10:96::a'), 9);
    assert.equal(ServiceIPRange.parse('fd00::/64')!.size, 65535);
    assert.equal(bigIntToIP(ipToBigInt('2001:db8:0:0:1:0:0:1')!.value, 'IPv6'), '2001:db8::1:0:0:1');
    assert.equal(bigIntToIP(ipToBigInt('::ffff:10.0.0.1')!.value, 'IPv6'), '::ffff:a00:1');
    assert.equal(bigIntToIP(ipToBigInt('fd00:0:0:1::')!.value, 'IPv6'), 'fd00:0:0:1::');
  });
});

describe('node port ranges', () => {
  it('parse base-max, base+size and single ports', () => {
    const r = NodePortRange.parse('30000-32767')!;
    assert.equal(r.size, 2768);
    assert.equal(r.spec, '30000-32767');
    assert.equal(NodePortRange.parse('30000+9')!.spec, '30000-30009');
    assert.equal(NodePortRange.parse('31000')!.size, 1);
    for (const bad of ['', '32767-30000', '1-70000', 'a-b']) assert.equal(NodePortRange.parse(bad), undefined, bad);
  });

  it('answer the original\'s error for a port outside the range', () => {
    const r = NodePortRange.parse('30000-32767')!;
    assert.equal(r.offsetOf(30000), 0);
    assert.throws(() => r.offsetOf(80), { message: 'provided port is not in the valid range. The range of valid ports is 30000-32767' });
  });
});
