/** ConfigMaps and Secrets: keys, size, stringData, type, immutability. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { configMapStrategy } from '../../../src/registry/strategies/configmaps.ts';
import { secretStrategy } from '../../../src/registry/strategies/secrets.ts';
import { ctx, lines, make } from './helpers.ts';

const b64 = (s: string): string => Buffer.from(s).toString('base64');

describe('configmaps', () => {
  it('check keys and data/binaryData overlap', () => {
    const cm = make('ConfigMap', { data: { 'good.key': 'v', 'bad key': 'v', both: 'x' }, binaryData: { both: b64('y') } });
    assert.deepEqual(lines(configMapStrategy.validate!(cm, ctx())), [
      "data[bad key]: Invalid value: \"bad key\": a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')",
      'data[both]: Invalid value: "both": duplicate of key present in binaryData',
    ]);
  });

  it('limit the total size to 1 MiB', () => {
    const cm = make('ConfigMap', { data: { a: 'x'.repeat(1024 * 1024), b: 'y' } });
    assert.deepEqual(lines(configMapStrategy.validate!(cm, ctx())), [': Too long: may not be more than 1048576 bytes']);
    assert.deepEqual(configMapStrategy.validate!(make('ConfigMap', { data: { a: 'x'.repeat(1024 * 1024) } }), ctx()), []);
  });

  it('freeze data once immutable', () => {
    const old = make('ConfigMap', { data: { a: '1' }, immutable: true });
    assert.deepEqual(configMapStrategy.validateUpdate!(structuredClone(old), old, ctx()), []);
    const changed = make('ConfigMap', { data: { a: '2' } });
    assert.deepEqual(lines(configMapStrategy.validateUpdate!(changed, old, ctx())), [
      'immutable: Forbidden: field is immutable when `immutable` is set',
      'data: Forbidden: field is immutable when `immutable` is set',
    ]);
    const mutable = make('ConfigMap', { data: { a: '1' } });
    assert.deepEqual(configMapStrategy.validateUpdate!(make('ConfigMap', { data: { a: '2' } }), mutable, ctx()), []);
  });
});

describe('secrets', () => {
  it('write stringData into data, over a same-named key, and default the type', () => {
    const s = make('Secret', { data: { user: b64('old'), keep: b64('k') }, stringData: { user: 'admin', pass: 'p@ss' } });
    secretStrategy.defaults?.(s);
    secretStrategy.prepareForCreate?.(s, ctx());
    assert.deepEqual(s['data'], { user: b64('admin'), keep: b64('k'), pass: b64('p@ss') });
    assert.equal(s['stringData'], undefined);
    assert.equal(s['type'], 'Opaque');
    assert.deepEqual(secretStrategy.validate!(s, ctx()), []);
  });

  it('require the keys of well-known types', () => {
    const tls = make('Secret', { type: 'orch.io/tls', data: { 'tls.crt': b64('c') } });
    assert.deepEqual(lines(secretStrategy.validate!(tls, ctx())), ['data[tls.key]: Required value']);
    const basic = make('Secret', { type: 'orch.io/basic-auth', data: {} });
    assert.deepEqual(lines(secretStrategy.validate!(basic, ctx())), ['data[username]: Required value', 'data[password]: Required value']);
    const token = make('Secret', { type: 'orch.io/service-account-token' });
    assert.deepEqual(lines(secretStrategy.validate!(token, ctx())), ['metadata.annotations[orch.io/service-account.name]: Required value']);
    const docker = make('Secret', { type: 'orch.io/dockerconfigjson', data: { '.dockerconfigjson': b64('not json') } });
    assert.equal(secretStrategy.validate!(docker, ctx())[0]!.field, 'data[.dockerconfigjson]');
  });

  it('refuse values that are not base64', () => {
    const s = make('Secret', { type: 'Opaque', data: { a: 'not base64!' } });
    assert.deepEqual(lines(secretStrategy.validate!(s, ctx())), ['data[a]: Invalid value: "<secret contents redacted>": must be base64-encoded bytes']);
  });

  it('keep the type and, once immutable, the data', () => {
    const old = make('Secret', { type: 'Opaque', data: { a: b64('1') }, immutable: true });
    const next = make('Secret', { type: 'orch.io/tls', data: { a: b64('2'), 'tls.crt': b64('c'), 'tls.key': b64('k') }, immutable: true });
    assert.deepEqual(lines(secretStrategy.validateUpdate!(next, old, ctx())), [
      'type: Invalid value: "orch.io/tls": field is immutable',
      'data: Forbidden: field is immutable when `immutable` is set',
    ]);
  });
});
