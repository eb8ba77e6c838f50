import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { HeaderBag, lowerHeaderName } from '../../src/frontends/header-bag.ts';

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

  it('never answers for a pseudo-header, asked by name', () => {
    assert.equal(bag.get(':method'), undefined);
    assert.deepEqual(bag.values(':authority'), []);
  });

  it('answers the same from a long list, which it indexes, as from a short one, which it scans', () => {
    const raw: string[] = [];
    for (let i = 0; i < 40; i++) raw.push(`X-Filler-${i}`, String(i));
    raw.push('Impersonate-Group', 'a', 'impersonate-group', 'b', 'Cookie', 'x=1', 'cookie', 'y=2', ':authority', 'h:1');
    const long = new HeaderBag(raw);
    assert.equal(long.get('X-FILLER-39'), '39');
    assert.equal(long.get('impersonate-group'), 'a, b');
    assert.deepEqual(long.values('Impersonate-Group'), ['a', 'b']);
    assert.equal(long.get('cookie'), 'x=1; y=2');
    assert.equal(long.get('host'), 'h:1');
    assert.equal(long.get(':authority'), undefined);
    assert.equal(long.get('missing'), undefined);
  });

  it('takes a list whose names the stack lower-cased as it is, asked in any case', () => {
    const lowered = new HeaderBag(['authorization', 'Bearer t', 'accept', 'application/json'], true);
    assert.equal(lowered.get('Authorization'), 'Bearer t');
    assert.equal(lowered.get('ACCEPT'), 'application/json');
    assert.deepEqual(lowered.names(), ['authorization', 'accept']);
  });

  it('answers for thousands of headers and names thousands of characters long', () => {
    const raw: string[] = [];
    for (let i = 0; i < 2000; i++) raw.push(`X-${'N'.repeat(5000)}-${i}`, `v${i}`);
    const huge = new HeaderBag(raw);
    assert.equal(huge.get(`x-${'n'.repeat(5000)}-1999`), 'v1999');
    assert.equal(huge.names().length, 2000);
    const lowered = new HeaderBag(raw.map((x, i) => (i % 2 === 0 ? x.toLowerCase() : x)), true);
    assert.equal(lowered.get(`X-${'N'.repeat(5000)}-7`), 'v7');
    assert.deepEqual(lowered.values('missing'), []);
  });

  it('lower-cases names through a bounded cache', () => {
    for (let i = 0; i < 3000; i++) assert.equal(lowerHeaderName(`X-Name-${i}`), `x-name-${i}`);
    assert.equal(lowerHeaderName(`X-${'A'.repeat(100)}`), `x-${'a'.repeat(100)}`);
    assert.equal(lowerHeaderName('Content-Type'), 'content-type');
  });
});
