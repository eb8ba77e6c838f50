/**
 * What serving an older version costs: a LIST of N CronJobs and a GET of one,
 * through batch/v1 (the stored version: the shard's bytes pass through) and
 * through batch/v1beta1 (each object parsed, converted, serialized again), as
 * JSON and as Protobuf. Prints medians over interleaved rounds, in ms per LIST
 * and µs per GET, measured by a client in this process (so they include its
 * own HTTPS costs; compare the columns, not the absolutes).
 *
 *   node --import tsx loadtest/versions/run.ts [objects=2000] [rounds=15]
 */
import { startTestServer } from '../../test/support/test-server.ts';

const N = Number(process.argv[2] ?? 2000);
const ROUNDS = Number(process.argv[3] ?? 15);
const GETS = 200;
const PB = 'application/vnd.kubernetes.protobuf';

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

async function main(): Promise<void> {
  const srv = await startTestServer(['--frontend-threads=1']);
  try {
    const spec = { schedule: '*/5 * * * *', jobTemplate: { spec: { template: { spec: { containers: [{ name: 'c', image: 'busybox', args: ['echo', 'hello'] }], restartPolicy: 'Never' } } } } };
    for (let i = 0; i < N; i++) {
      const r = await srv.request('POST', '/apis/batch/v1/namespaces/default/cronjobs', { apiVersion: 'batch/v1', kind: 'CronJob', metadata: { name: `cj-${i}`, labels: { app: 'bench' } }, spec });
      if (r.status !== 201) throw new Error(`create: ${r.status} ${r.body}`);
    }
    const cases = [
      ['batch/v1', 'application/json'],
      ['batch/v1beta1', 'application/json'],
      ['batch/v1', PB],
      ['batch/v1beta1', PB],
    ] as const;
    const lists = new Map<string, number[]>();
    const gets = new Map<string, number[]>();
    for (let round = 0; round < ROUNDS; round++) {
      for (const [gv, accept] of cases) {
        const key = `${gv} ${accept === PB ? 'protobuf' : 'json'}`;
        let t = performance.now();
        const r = await srv.request('GET', `/apis/${gv}/namespaces/default/cronjobs`, undefined, { headers: { accept } });
        if (r.status !== 200) throw new Error(`list ${key}: ${r.status}`);
        (lists.get(key) ?? lists.set(key, []).get(key)!).push(performance.now() - t);
        t = performance.now();
        for (let i = 0; i < GETS; i++) await srv.request('GET', `/apis/${gv}/namespaces/default/cronjobs/cj-${i % N}`, undefined, { headers: { accept } });
        (gets.get(key) ?? gets.set(key, []).get(key)!).push(((performance.now() - t) / GETS) * 1000);
      }
    }
    console.log(`${N} CronJobs, ${ROUNDS} interleaved rounds, medians`);
    console.log('| version, encoding | LIST (ms) | GET (µs) |');
    console.log('|---|---|---|');
    for (const [key, xs] of lists) console.log(`| ${key} | ${median(xs).toFixed(1)} | ${median(gets.get(key)!).toFixed(0)} |`);
  } finally {
    await srv.stop();
  }
}

await main();
