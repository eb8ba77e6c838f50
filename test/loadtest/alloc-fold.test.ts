/** The allocation profile's folding (loadtest/profile/alloc.ts): bytes by function over the sampled tree. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { bytesByFunction } from '../../loadtest/profile/alloc.ts';

interface Node {
  callFrame: { functionName: string; url: string; lineNumber: number };
  selfSize: number;
  children: Node[];
}

const node = (functionName: string, url: string, lineNumber: number, selfSize: number, children: Node[] = []): Node => ({
  callFrame: { functionName, url, lineNumber },
  selfSize,
  children,
});

describe('bytesByFunction', () => {
  it('sums a function met at several places in the tree, names it by file and line, and totals every node', () => {
    const head = node('(root)', '', -1, 0, [
      node('get', 'file:///tmp/build/dist/src/registry/generic-store.js', 152, 100, [node('', 'file:///tmp/build/dist/src/server/chain.js', 46, 30)]),
      node('', 'file:///tmp/build/dist/src/server/chain.js', 46, 20),
      node('serializeUUID', 'node:internal/crypto/random', 358, 7),
    ]);
    const { total, byFunction } = bytesByFunction(head);
    assert.equal(total, 157);
    assert.equal(byFunction.get('get src/registry/generic-store.js:153'), 100);
    assert.equal(byFunction.get('(anonymous) src/server/chain.js:47'), 50);
    assert.equal(byFunction.get('serializeUUID node:internal/crypto/random:359'), 7);
    assert.equal(byFunction.get('(root)'), 0);
  });
});
