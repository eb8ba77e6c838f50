/**
 * What does EtcdStore cost over the bare etcd3 client? Run by hand:
 *
 *   node --import tsx loadtest/storage/etcd-raw.ts [--seconds=10] [--concurrency=64] [--value-bytes=512] [--no-fsync]
 *
 * Each phase gets a fresh etcd (test/support/etcd-server.ts, fsync on unless
 * --no-fsync) so no phase runs on a database grown by another, and measures
 * unique-key writes at a fixed concurrency:
 *   raw put      client.put(key).value(v)
 *   raw txn      client.if(key, 'Create', '==', 0).then(client.put(key).value(v)).commit()
 *   store create EtcdStore.create(key, v)  (the same transaction, plus mapping)
 * Target: store create >= 80% of raw txn.
 */
import { Etcd3 } from 'etcd3';
import { EtcdStore } from '../../src/storage/etcd/index.ts';
import { etcdVersion, startEtcd } from '../../test/support/etcd-server.ts';

interface Phase {
  readonly name: string;
  /** Returns the write function for one op index, and a closer. */
  setup(endpoint: string): Promise<{ op: (i: number) => Promise<unknown>; close: () => Promise<void> | void }>;
}

interface Result {
  readonly name: string;
  readonly ops: number;
  readonly seconds: number;
  readonly perSecond: number;
  readonly p50: number;
  readonly p99: number;
}

const args = new Map(
  process.argv.slice(2).map((a) => {
    const [k, v] = a.replace(/^--/, '').split('=');
    return [k!, v ?? 'true'] as const;
  }),
);
const seconds = Number(args.get('seconds') ?? 10);
const concurrency = Number(args.get('concurrency') ?? 64);
const valueBytes = Number(args.get('value-bytes') ?? 512);
const noFsync = args.has('no-fsync');
const value = Buffer.alloc(valueBytes, 'x');

const phases: Phase[] = [
  {
    name: 'raw put',
    async setup(endpoint) {
      const client = new Etcd3({ hosts: [endpoint] });
      return { op: (i) => client.put(`/raw/put/${i}`).value(value).exec(), close: () => client.close() };
    },
  },
  {
    name: 'raw create-if-absent txn',
    async setup(endpoint) {
      const client = new Etcd3({ hosts: [endpoint] });
      return {
        op: (i) => {
          const key = `/raw/txn/${i}`;
          return client.if(key, 'Create', '==', 0).then(client.put(key).value(value)).commit();
        },
        close: () => client.close(),
      };
    },
  },
  {
    name: 'EtcdStore.create',
    async setup(endpoint) {
      const store = await EtcdStore.connect({ endpoints: [endpoint], prefix: '/registry' });
      return { op: (i) => store.create(`/store/${i}`, value), close: () => store.close() };
    },
  },
];

async function measure(phase: Phase): Promise<Result> {
  const etcd = await startEtcd({ unsafeNoFsync: noFsync });
  const { op, close } = await phase.setup(etcd.endpoint);
  try {
    let next = 0;
    const drive = async (until: number, latencies: number[] | null): Promise<void> => {
      const worker = async (): Promise<void> => {
        while (performance.now() < until) {
          const t0 = performance.now();
          await op(next++);
          latencies?.push(performance.now() - t0);
        }
      };
      await Promise.all(Array.from({ length: concurrency }, worker));
    };
    await drive(performance.now() + 1000, null); // warm up connections and JIT
    const latencies: number[] = [];
    const t0 = performance.now();
    await drive(t0 + seconds * 1000, latencies);
    const elapsed = (performance.now() - t0) / 1000;
    latencies.sort((a, b) => a - b);
    const pct = (p: number): number => latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * p))]!;
    return {
      name: phase.name,
      ops: latencies.length,
      seconds: elapsed,
      perSecond: latencies.length / elapsed,
      p50: pct(0.5),
      p99: pct(0.99),
    };
  } finally {
    await close();
    await etcd.stop();
  }
}

console.log(
  `etcd ${etcdVersion()}, fsync ${noFsync ? 'off' : 'on'}, concurrency ${concurrency}, ` +
    `${valueBytes}-byte values, ${seconds} s per phase, fresh etcd per phase`,
);
const results: Result[] = [];
for (const phase of phases) {
  const r = await measure(phase);
  results.push(r);
  console.log(
    `${r.name.padEnd(26)} ${r.perSecond.toFixed(0).padStart(7)} ops/s   ` +
      `p50 ${r.p50.toFixed(2)} ms   p99 ${r.p99.toFixed(2)} ms   (${r.ops} ops in ${r.seconds.toFixed(1)} s)`,
  );
}
const txn = results.find((r) => r.name.startsWith('raw create'))!;
const store = results.find((r) => r.name === 'EtcdStore.create')!;
const ratio = store.perSecond / txn.perSecond;
console.log(`EtcdStore.create / raw txn = ${(ratio * 100).toFixed(1)}% (target >= 80%)`);
process.exitCode = ratio >= 0.8 ? 0 : 1;
