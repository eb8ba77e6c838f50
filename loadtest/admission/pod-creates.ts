/**
 * Pod creates/s through the default admission plugins against the same
 * server with the pod plugins disabled (ServiceAccount, Priority,
 * DefaultTolerationSeconds, RuntimeClass, TaintNodesByCondition): what the
 * pod plugins cost per create. Both servers run in this process one after
 * the other, rounds interleaved (A B A B ...) so machine noise falls on both.
 * Config-map creates are untouched by these plugins (they do not handle the
 * type: the chain compiles them away), so the project's headline creates/s
 * benchmark does not move.
 *
 *   node --import tsx loadtest/admission/pod-creates.ts
 *   POD_CREATES=2000 POD_CONCURRENCY=32 POD_ROUNDS=3 ...
 */
import { startTestServer, type TestServer } from '../../test/support/test-server.ts';
import { envNumber } from '../lib/env.ts';
import { describeMachine, machineInfo } from '../lib/machine.ts';

const CREATES = envNumber('POD_CREATES', 2000);
const CONCURRENCY = envNumber('POD_CONCURRENCY', 32);
const ROUNDS = envNumber('POD_ROUNDS', 3);
const POD_PLUGINS = 'ServiceAccount,Priority,DefaultTolerationSeconds,RuntimeClass,TaintNodesByCondition';

async function round(t: TestServer, ns: string, tag: string): Promise<number> {
  let next = 0;
  let failed = 0;
  const started = process.hrtime.bigint();
  const worker = async (): Promise<void> => {
    for (;;) {
      const i = next++;
      if (i >= CREATES) return;
      const res = await t.request(
        'POST',
        `/api/v1/namespaces/${ns}/pods`,
        { apiVersion: 'v1', kind: 'Pod', metadata: { name: `p-${tag}-${i}` }, spec: { containers: [{ name: 'c', image: 'nginx' }] } },
        { as: 'token' },
      );
      if (res.status !== 201) failed++;
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  if (failed > 0) throw new Error(`${failed} creates failed in round ${tag}`);
  return CREATES / seconds;
}

async function main(): Promise<void> {
  const withPlugins = await startTestServer([]);
  const without = await startTestServer([`--disable-admission-plugins=${POD_PLUGINS}`]);
  try {
    for (const t of [withPlugins, without]) {
      const r = await t.request('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'bench' } });
      if (r.status !== 201) throw new Error(r.body);
    }
    await new Promise((r) => setTimeout(r, 500)); // the default service account
    await round(withPlugins, 'bench', 'warm-a');
    await round(without, 'bench', 'warm-b');
    const a: number[] = [];
    const b: number[] = [];
    for (let i = 0; i < ROUNDS; i++) {
      a.push(await round(withPlugins, 'bench', `a${i}`));
      b.push(await round(without, 'bench', `b${i}`));
    }
    const median = (xs: number[]) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)]!;
    console.log(describeMachine(machineInfo()));
    console.log(`pod creates/s, default plugins: ${a.map((x) => x.toFixed(0)).join(' ')} (median ${median(a).toFixed(0)})`);
    console.log(`pod creates/s, pod plugins off: ${b.map((x) => x.toFixed(0)).join(' ')} (median ${median(b).toFixed(0)})`);
    console.log(`ratio: ${(median(a) / median(b)).toFixed(3)}`);
  } finally {
    await withPlugins.stop();
    await without.stop();
  }
}

await main();
