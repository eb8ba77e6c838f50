/**
 * Micro-benchmark: the cost of authenticating one request by bearer token
 * once the method's result is cached, through the same bearer authenticator
 * the filter runs and in the order build.ts assembles (token file, OIDC,
 * webhook): a static token, an OIDC ID token from a real provider on
 * loopback, a webhook token answered by a real HTTPS webhook. Plus the cost
 * of a first (uncached) OIDC verification, RS256. In-process and CPU-bound,
 * so it says more than loadtest/authn/run.ts on a busy machine.
 *
 *   node --import tsx loadtest/micro/authn-tokens.ts
 */
import fs from 'node:fs/promises';
import { BearerTokenAuthenticator } from '../../src/authn/bearer.ts';
import { StaticTokenAuthenticator } from '../../src/authn/token-file.ts';
import { OidcTokenAuthenticator } from '../../src/authn/oidc/authenticator.ts';
import { OidcProvider } from '../../src/authn/oidc/provider.ts';
import { JsonGetter } from '../../src/authn/oidc/https-get.ts';
import { defaultOidcOptions } from '../../src/authn/oidc/config.ts';
import { createTokenWebhookAuthenticator } from '../../src/authn/webhook/index.ts';
import { defaultTokenWebhookOptions } from '../../src/authn/webhook/config.ts';
import { apiGroup } from '../../src/naming/index.ts';
import { fakeRequest } from '../../test/authn/support/request.ts';
import { createTestIdp } from '../../test/authn/support/idp.ts';
import { createTestWebhook, reviewAnswer } from '../../test/authn/support/webhook-server.ts';
import { machineInfo, describeMachine } from '../lib/machine.ts';

const CLIENT = 'orch-micro';
const STATIC = 'static-token-0123456789abcdef0123456789';
const WEBHOOK = 'webhook-token-0123456789abcdef012345678';
const silent = { info: () => {}, warn: () => {} };

async function microsPerCall(fn: () => Promise<unknown>, n: number): Promise<number> {
  for (let i = 0; i < 2000; i++) await fn();
  const start = process.hrtime.bigint();
  for (let i = 0; i < n; i++) await fn();
  return Number(process.hrtime.bigint() - start) / 1000 / n;
}

const idp = await createTestIdp({ clientId: CLIENT });
const hook = await createTestWebhook();
hook.answer = (r) => reviewAnswer(String(r['apiVersion']), { authenticated: true, user: { username: 'w', groups: ['g'] } });
try {
  const provider = new OidcProvider({ issuerUrl: idp.issuer, getter: new JsonGetter({ ca: await fs.readFile(idp.tls.caFile, 'utf8') }), logger: silent });
  await provider.start();
  const oidc = new OidcTokenAuthenticator({ ...defaultOidcOptions(), issuerUrl: idp.issuer, clientId: CLIENT }, { provider });
  const webhook = (await createTokenWebhookAuthenticator({ ...defaultTokenWebhookOptions(), configFile: await hook.kubeconfig() }, { logger: silent }))!;
  const bearer = new BearerTokenAuthenticator([new StaticTokenAuthenticator([{ token: STATIC, user: { name: 'admin', groups: ['system:masters'] } }]), oidc, webhook]);
  const idToken = await idp.sign({ exp: Math.floor(Date.now() / 1000) + 3600 });
  const reqs = {
    static: fakeRequest({ headers: { authorization: `Bearer ${STATIC}` } }),
    oidc: fakeRequest({ headers: { authorization: `Bearer ${idToken}` } }),
    webhook: fakeRequest({ headers: { authorization: `Bearer ${WEBHOOK}` } }),
  };
  for (const [k, r] of Object.entries(reqs)) {
    const res = await bearer.authenticate(r);
    if (res.kind !== 'user') throw new Error(`${k}: ${JSON.stringify(res)}`);
  }
  const N = 200_000;
  const rows: Array<[string, number]> = [];
  // Interleaved rounds; the median of each kind.
  const samples: Record<string, number[]> = { static: [], oidc: [], webhook: [] };
  for (let round = 0; round < 5; round++) {
    for (const k of Object.keys(reqs) as Array<keyof typeof reqs>) samples[k]!.push(await microsPerCall(async () => bearer.authenticate(reqs[k]), N / 5));
  }
  for (const [k, xs] of Object.entries(samples)) rows.push([k, xs.sort((a, b) => a - b)[2]!]);
  // Uncached: a fresh token each call (signature check, claims), no network.
  const fresh = await Promise.all(Array.from({ length: 2000 }, (_, i) => idp.sign({ sub: `u${i}`, exp: Math.floor(Date.now() / 1000) + 3600 })));
  const coldStart = process.hrtime.bigint();
  for (const t of fresh) await oidc.authenticateToken(t);
  const coldMicros = Number(process.hrtime.bigint() - coldStart) / 1000 / fresh.length;
  console.log(`bearer authentication of one request, result cached (median of 5 interleaved rounds of ${N / 5}):`);
  for (const [k, us] of rows) console.log(`  ${k.padEnd(8)} ${us.toFixed(2)} µs`);
  console.log(`OIDC first verification (RS256 signature and claims, no network): ${coldMicros.toFixed(1)} µs`);
  console.log(`webhook calls made: ${hook.calls.length} (the first request only); provider fetches: ${idp.hits.discovery + idp.hits.jwks}`);
  console.log(`machine: ${describeMachine(machineInfo())}`);
  oidc.close();
  webhook.close();
} finally {
  await idp.close();
  await hook.close();
}
