/**
 * The bootstrap token authenticator against an in-memory ObjectSource: every
 * rule of the original's checks, the decision cache, and revocation through
 * the change feed (a deleted or edited secret stops a cached token at once).
 * End to end on a started server: test/e2e/bootstrap-token.test.ts.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  BootstrapTokenAuthenticator,
  bootstrapGroups,
  expirationTime,
  parseBootstrapToken,
} from '../../src/authn/bootstrap-token.ts';
import type { AuthnResource, ObjectChange, ObjectSource } from '../../src/authn/object-source.ts';
import type { KObject } from '../../src/registry/object.ts';
import { names } from '../../src/naming/index.ts';

const NS = names.systemNamespace;
const ID = 'abcdef';
const SECRET = '0123456789abcdef';
const TOKEN = `${ID}.${SECRET}`;

class MemorySource implements ObjectSource {
  readonly objects = new Map<string, KObject>();
  readonly listeners = new Set<(c: ObjectChange) => void>();
  gets = 0;

  async get(resource: AuthnResource, namespace: string, name: string): Promise<KObject | null> {
    this.gets++;
    return this.objects.get(`${resource}/${namespace}/${name}`) ?? null;
  }
  onChange(_resource: AuthnResource, listener: (c: ObjectChange) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
  close(): void {}

  put(secret: KObject): void {
    const m = secret.metadata;
    const existed = this.objects.has(`secrets/${m.namespace}/${m.name}`);
    this.objects.set(`secrets/${m.namespace}/${m.name}`, secret);
    this.emit({ type: existed ? 'MODIFIED' : 'ADDED', namespace: m.namespace!, name: m.name!, uid: 'u', object: secret });
  }
  remove(namespace: string, name: string): void {
    const obj = this.objects.get(`secrets/${namespace}/${name}`)!;
    this.objects.delete(`secrets/${namespace}/${name}`);
    this.emit({ type: 'DELETED', namespace, name, uid: 'u', object: obj });
  }
  emit(c: ObjectChange): void {
    for (const l of this.listeners) l(c);
  }
}

function b64(s: string): string {
  return Buffer.from(s, 'utf8').toString('base64');
}

function tokenSecret(data: Record<string, string>, overrides: Partial<KObject> = {}): KObject {
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: `bootstrap-token-${ID}`, namespace: NS },
    type: names.secretTypes.bootstrapToken,
    data: Object.fromEntries(Object.entries(data).map(([k, v]) => [k, b64(v)])),
    ...overrides,
  };
}

const GOOD = { 'token-id': ID, 'token-secret': SECRET, 'usage-bootstrap-authentication': 'true' };

function setup(data: Record<string, string> = GOOD, overrides: Partial<KObject> = {}, now = () => Date.now()) {
  const source = new MemorySource();
  source.put(tokenSecret(data, overrides));
  const rejected: string[] = [];
  const auth = new BootstrapTokenAuthenticator({ objects: source, now, onReject: (_id, reason) => rejected.push(reason) });
  return { source, auth, rejected };
}

describe('bootstrap token format', () => {
  it('parses <id>.<secret> with the original regexps only', () => {
    assert.deepEqual(parseBootstrapToken(TOKEN), { id: ID, secret: SECRET });
    for (const t of ['ABCDEF.0123456789abcdef', 'abcde.0123456789abcdef', 'abcdef.0123456789abcde', 'abcdef0123456789abcdef', ` ${TOKEN}`, `${TOKEN}x`, 'abcdef.0123456789abcdeF']) {
      assert.equal(parseBootstrapToken(t), undefined, t);
    }
  });

  it('extra groups must start with system:bootstrappers:, result sorted and deduplicated', () => {
    assert.deepEqual(bootstrapGroups(''), { groups: ['system:bootstrappers'] });
    assert.deepEqual(bootstrapGroups('system:bootstrappers:z,system:bootstrappers:a,system:bootstrappers:z'), {
      groups: ['system:bootstrappers', 'system:bootstrappers:a', 'system:bootstrappers:z'],
    });
    for (const bad of ['system:masters', 'system:bootstrappers:', 'system:bootstrappers:Caps', 'system:bootstrappers:a,', ' system:bootstrappers:a']) {
      assert.ok('error' in bootstrapGroups(bad), bad);
    }
  });

  it('expiration is RFC 3339; unset is never, garbage is NaN (treated as expired)', () => {
    assert.equal(expirationTime(''), Infinity);
    assert.equal(expirationTime('2030-01-02T03:04:05Z'), Date.UTC(2030, 0, 2, 3, 4, 5));
    assert.equal(expirationTime('2030-01-02T03:04:05+01:00'), Date.UTC(2030, 0, 2, 2, 4, 5));
    assert.ok(Number.isNaN(expirationTime('2030-01-02')));
    assert.ok(Number.isNaN(expirationTime('tomorrow')));
  });
});

describe('bootstrap token authenticator', () => {
  it('recognises a good token as system:bootstrap:<id> in system:bootstrappers plus extra groups', async () => {
    const { auth } = setup({ ...GOOD, 'auth-extra-groups': 'system:bootstrappers:nodes,system:bootstrappers:a' });
    const r = await auth.authenticateToken(TOKEN);
    assert.equal(r.kind, 'user');
    assert.ok(r.kind === 'user');
    assert.deepEqual(r.user, { name: `system:bootstrap:${ID}`, groups: ['system:bootstrappers', 'system:bootstrappers:a', 'system:bootstrappers:nodes'] });
    assert.equal(r.method, 'bootstrap-token');
  });

  it('has no opinion on tokens of another shape, without a lookup', async () => {
    const { auth, source } = setup();
    const before = source.gets;
    assert.deepEqual(await auth.authenticateToken('some-static-token'), { kind: 'none' });
    assert.equal(source.gets, before);
  });

  const rejections: Array<[string, Record<string, string>, Partial<KObject>, RegExp]> = [
    ['wrong secret', { ...GOOD, 'token-secret': 'ffffffffffffffff' }, {}, /invalid value for key token-secret/],
    ['secret of another length', { ...GOOD, 'token-secret': 'short' }, {}, /invalid value for key token-secret/],
    ['token-id mismatch', { ...GOOD, 'token-id': 'zzzzzz' }, {}, /invalid value for key token-id/],
    ['expired', { ...GOOD, expiration: new Date(Date.now() - 1000).toISOString().replace(/\.\d+Z$/, 'Z') }, {}, /expired/],
    ['unparsable expiration', { ...GOOD, expiration: 'soon' }, {}, /unparsable expiration/],
    ['missing usage', { 'token-id': ID, 'token-secret': SECRET }, {}, /not marked usage-bootstrap-authentication=true/],
    ['usage not "true"', { ...GOOD, 'usage-bootstrap-authentication': 'yes' }, {}, /not marked/],
    ['bad extra group', { ...GOOD, 'auth-extra-groups': 'system:bootstrappers:ok,system:masters' }, {}, /auth-extra-groups/],
    ['wrong type', GOOD, { type: 'Opaque' }, /invalid type/],
    ['being deleted', GOOD, { metadata: { name: `bootstrap-token-${ID}`, namespace: NS, deletionTimestamp: '2020-01-01T00:00:00Z' } }, /deleted/],
  ];
  for (const [what, data, overrides, reason] of rejections) {
    it(`rejects: ${what}, with a reason that never holds the secret part`, async () => {
      const { auth, rejected } = setup(data, overrides);
      const r = await auth.authenticateToken(TOKEN);
      assert.equal(r.kind, 'invalid', what);
      assert.ok(r.kind === 'invalid');
      assert.match(r.message, reason);
      assert.ok(!r.message.includes(SECRET) && !rejected.join().includes(SECRET));
    });
  }

  it('rejects a token whose secret does not exist, and a secret in another namespace does not count', async () => {
    const source = new MemorySource();
    source.put(tokenSecret(GOOD, { metadata: { name: `bootstrap-token-${ID}`, namespace: 'default' } }));
    const auth = new BootstrapTokenAuthenticator({ objects: source });
    const r = await auth.authenticateToken(TOKEN);
    assert.equal(r.kind, 'invalid');
  });

  it('a token with an expiration in the future works until then, and not after (cached or not)', async () => {
    let now = Date.UTC(2030, 0, 1);
    const { auth } = setup({ ...GOOD, expiration: '2030-01-01T00:01:00Z' }, {}, () => now);
    assert.equal((await auth.authenticateToken(TOKEN)).kind, 'user');
    now += 30_000;
    assert.equal((await auth.authenticateToken(TOKEN)).kind, 'user');
    now += 31_000;
    assert.equal((await auth.authenticateToken(TOKEN)).kind, 'invalid');
  });

  it('caches decisions: repeated requests make one lookup', async () => {
    const { auth, source } = setup();
    const before = source.gets;
    for (let i = 0; i < 5; i++) assert.equal((await auth.authenticateToken(TOKEN)).kind, 'user');
    assert.equal(source.gets - before, 1);
  });

  it('a deleted secret revokes the cached token at once', async () => {
    const { auth, source } = setup();
    assert.equal((await auth.authenticateToken(TOKEN)).kind, 'user');
    source.remove(NS, `bootstrap-token-${ID}`);
    assert.equal((await auth.authenticateToken(TOKEN)).kind, 'invalid');
  });

  it('an edited secret (usage removed) revokes; a fixed one is accepted again despite the cached rejection', async () => {
    const { auth, source } = setup();
    assert.equal((await auth.authenticateToken(TOKEN)).kind, 'user');
    source.put(tokenSecret({ 'token-id': ID, 'token-secret': SECRET }));
    assert.equal((await auth.authenticateToken(TOKEN)).kind, 'invalid');
    source.put(tokenSecret(GOOD));
    assert.equal((await auth.authenticateToken(TOKEN)).kind, 'user');
  });

  it('a lookup that raced a change does not cache its stale answer', async () => {
    const source = new MemorySource();
    source.put(tokenSecret(GOOD));
    const read = source.get.bind(source);
    let gate: Promise<void> | undefined;
    // The read completes before the delete, its answer arrives after it.
    source.get = async (...args) => {
      const got = await read(...args);
      if (gate !== undefined) await gate;
      return got;
    };
    let release!: () => void;
    gate = new Promise<void>((r) => (release = r));
    const auth = new BootstrapTokenAuthenticator({ objects: source });
    const pending = auth.authenticateToken(TOKEN);
    await new Promise((r) => setImmediate(r));
    source.remove(NS, `bootstrap-token-${ID}`);
    release();
    assert.equal((await pending).kind, 'user', 'the answer read before the delete');
    gate = undefined;
    assert.equal((await auth.authenticateToken(TOKEN)).kind, 'invalid', 'but it was not cached');
  });

  it('a reset of the feed (missed events) drops every cached decision', async () => {
    const { auth, source } = setup();
    assert.equal((await auth.authenticateToken(TOKEN)).kind, 'user');
    source.objects.clear();
    source.emit({ type: 'reset' });
    assert.equal((await auth.authenticateToken(TOKEN)).kind, 'invalid');
  });

  it('changes of other secrets do not drop the cache', async () => {
    const { auth, source } = setup();
    await auth.authenticateToken(TOKEN);
    const before = source.gets;
    source.put(tokenSecret(GOOD, { metadata: { name: 'bootstrap-token-zzzzzz', namespace: NS } }));
    source.put(tokenSecret(GOOD, { metadata: { name: `bootstrap-token-${ID}`, namespace: 'default' } }));
    assert.equal((await auth.authenticateToken(TOKEN)).kind, 'user');
    assert.equal(source.gets, before);
  });

  it('close() unsubscribes from the feed', () => {
    const { auth, source } = setup();
    assert.equal(source.listeners.size, 1);
    auth.close();
    assert.equal(source.listeners.size, 0);
  });
});
