/**
 * The filter chain's steps: a filter returns its rest's step as it is, so a
 * request nothing waits for goes through every filter in one turn, and the
 * chain waits only where something really waits. These tests pin that, and
 * that stepFinally keeps try/finally's meaning for both kinds of step.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { composeFilters, RequestContext, stepFinally, stepWith, type Filter, type Next } from '../../src/server/context.ts';
import { buildHandlerChain, DEFAULT_CHAIN_OPTIONS } from '../../src/server/chain.ts';
import type { Authenticator } from '../../src/authn/types.ts';
import { GROUP_AUTHENTICATED } from '../../src/authn/types.ts';
import type { Authorizer } from '../../src/authz/types.ts';
import { createLogger } from '../../src/server/logging.ts';
import { createMetrics } from '../../src/server/metrics.ts';
import { exchange } from './fake-http.ts';

function context(): RequestContext {
  const ex = exchange('GET', '/api/v1/namespaces/default/pods/p', {});
  return new RequestContext(ex.req, ex.res);
}

describe('composeFilters', () => {
  it('runs filters outside-in and returns the handler step unchanged: undefined when nothing waited', async () => {
    const order: string[] = [];
    const tag =
      (name: string): Filter =>
      (ctx, next) => {
        order.push(name);
        return next(ctx);
      };
    const syncRun = composeFilters([tag('a'), tag('b'), tag('c')], () => {
      order.push('handler');
      return undefined;
    });
    assert.equal(syncRun(context()), undefined);
    assert.deepEqual(order, ['a', 'b', 'c', 'handler']);

    let handled = false;
    const asyncRun = composeFilters([tag('x')], async () => {
      await new Promise((r) => setImmediate(r));
      handled = true;
    });
    const step = asyncRun(context());
    assert.ok(step instanceof Promise);
    assert.equal(handled, false);
    await step;
    assert.equal(handled, true);
  });
});

describe('stepFinally', () => {
  const cases: { name: string; next: Next; outcome: 'sync' | 'resolves' | 'throws' | 'rejects' }[] = [
    { name: 'a step finished in the same turn', next: () => undefined, outcome: 'sync' },
    { name: 'a promise that resolves', next: () => Promise.resolve(), outcome: 'resolves' },
    {
      name: 'a synchronous throw',
      next: () => {
        throw new Error('boom');
      },
      outcome: 'throws',
    },
    { name: 'a promise that rejects', next: () => Promise.reject(new Error('boom')), outcome: 'rejects' },
  ];
  for (const c of cases) {
    it(`runs the after step once and passes the outcome on: ${c.name}`, async () => {
      let after = 0;
      const run = (): ReturnType<typeof stepFinally> => stepFinally(context(), c.next, () => after++);
      if (c.outcome === 'throws') {
        assert.throws(run, /boom/);
        assert.equal(after, 1);
        return;
      }
      const step = run();
      if (c.outcome === 'sync') {
        assert.equal(step, undefined);
        assert.equal(after, 1);
        return;
      }
      assert.ok(step instanceof Promise);
      assert.equal(after, 0, 'not before the rest of the chain finished');
      if (c.outcome === 'rejects') await assert.rejects(step, /boom/);
      else await step;
      assert.equal(after, 1);
    });
  }
});

describe('stepWith', () => {
  it('goes on in the same turn with a plain value, and after the promise with a promised one', async () => {
    const seen: number[] = [];
    assert.equal(
      stepWith(1, (v) => {
        seen.push(v);
        return undefined;
      }),
      undefined,
    );
    assert.deepEqual(seen, [1]);
    const step = stepWith(Promise.resolve(2), (v) => {
      seen.push(v);
      return undefined;
    });
    assert.deepEqual(seen, [1], 'a promised value is not taken in the same turn');
    await step;
    assert.deepEqual(seen, [1, 2]);
  });

  it('rejects with the promise and never calls the continuation', async () => {
    let called = false;
    const step = stepWith(Promise.reject(new Error('unreachable authenticator')), () => {
      called = true;
      return undefined;
    });
    await assert.rejects(Promise.resolve(step), /unreachable authenticator/);
    assert.equal(called, false);
  });
});

describe('the whole chain', () => {
  const authenticator: Authenticator = {
    name: 'local',
    authenticate: (req) =>
      req.header('authorization') === 'Bearer good' ? { kind: 'user', user: { name: 'alice', groups: [GROUP_AUTHENTICATED] }, method: 'token' } : { kind: 'none' },
  };
  const allow: Authorizer = { name: 'allow', authorize: () => ({ decision: 'allow', reason: '' }) };
  const build = (auth: Authenticator, authorizer: Authorizer, handler: Next) =>
    buildHandlerChain({
      authenticator: auth,
      authorizer,
      handler,
      logger: createLogger({ level: 'info', destination: { write() {} } }),
      metrics: createMetrics(),
      options: DEFAULT_CHAIN_OPTIONS,
    });
  const answer: Next = (ctx) => {
    ctx.res.writeHead(200, { 'content-type': 'application/json' });
    ctx.res.end('{}');
    return undefined;
  };

  it('answers in the same turn when the authenticator, the authorizer and the handler answer at once', () => {
    const handle = build(authenticator, allow, answer);
    const ex = exchange('GET', '/api/v1/namespaces/default/pods/p', { headers: { authorization: 'Bearer good' } });
    assert.equal(handle(ex.req, ex.res), undefined, 'no filter waited');
    assert.equal(ex.res.status, 200);
    assert.equal(ex.res.ended, true);
  });

  it('refuses in the same turn too, and waits where an answer is on its way', async () => {
    const handle = build(authenticator, allow, answer);
    const refused = exchange('GET', '/api/v1/pods', {});
    assert.equal(handle(refused.req, refused.res), undefined);
    assert.equal(refused.res.status, 401);

    const remote: Authenticator = { name: 'remote', authenticate: async (req) => authenticator.authenticate(req) };
    const slowAllow: Authorizer = { name: 'webhook', authorize: async () => ({ decision: 'allow', reason: '' }) };
    const waiting = build(remote, slowAllow, answer);
    const ex = exchange('GET', '/api/v1/namespaces/default/pods/p', { headers: { authorization: 'Bearer good' } });
    const step = waiting(ex.req, ex.res);
    assert.ok(step instanceof Promise);
    assert.equal(ex.res.status, 0, 'not answered before the authenticator did');
    await step;
    assert.equal(ex.res.status, 200);
  });

  it('answers a handler that throws synchronously with its Status, in the same turn', () => {
    const handle = build(authenticator, allow, () => {
      throw new Error('secret internals');
    });
    const ex = exchange('GET', '/api/v1/namespaces/default/pods/p', { headers: { authorization: 'Bearer good' } });
    assert.equal(handle(ex.req, ex.res), undefined);
    assert.equal(ex.res.status, 500);
    assert.doesNotMatch(ex.res.text, /secret internals/);
  });
});
