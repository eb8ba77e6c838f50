import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { HeaderBag } from '../../src/frontends/header-bag.ts';

describe('HeaderBag', () => {
  const bag = new HeaderBag([
    ':method', 'GET',
    ':authority', 'api.example:6443',
    'Impersonate-Group', 'a',
    'impersonate-group', 'b',
    'Cookie', 'x=1',
    'cookie', 'y=2',
    'Accept', 'application/json',
  ]);

  it('looks names up case-insensitively and keeps repeated values in order', () => {
    assert.equal(bag.get('ACCEPT'), 'application/json');
    assert.deepEqual(bag.values('Impersonate-Group'), ['a', 'b']);
    assert.equal(bag.get('impersonate-group'), 'a, b');
    assert.equal(bag.get('missing'), undefined);
    assert.deepEqual(bag.values('missing'), []);
  });

  it('joins cookie crumbs with "; " as HTTP/2 splits them', () => {
    assert.equal(bag.get('cookie'), 'x=1; y=2');
  });

  it('leaves pseudo-headers out and serves :authority as host', () => {
    assert.deepEqual(bag.names(), ['impersonate-group', 'cookie', 'accept', 'host']);
    assert.equal(bag.get('Host'), 'api.example:6443');
    assert.equal(new HeaderBag([':authority', 'a', 'host', 'b']).get('host'), 'b');
  });

  it('hands out copies', () => {
    bag.values('impersonate-group').push('c');
    assert.deepEqual(bag.values('impersonate-group'), ['a', 'b']);
  });
});
