/**
 * The shared storage conformance suite against a real etcd. One etcd serves
 * the whole file; every case gets its own key prefix, so cases see only their
 * own keys (they share etcd's revision counter, which the suite allows).
 */
import { after, before } from 'node:test';
import { runStoreConformance } from './suite.ts';
import { EtcdStore } from '../../../src/storage/etcd/index.ts';
import { startEtcd, type EtcdServer } from '../../support/etcd-server.ts';

let etcd: EtcdServer | undefined;
let n = 0;
const run = `${process.pid}-${Date.now().toString(36)}`;

before(async () => {
  etcd = await startEtcd({ unsafeNoFsync: true });
});
after(async () => {
  await etcd?.stop();
});

for (const progressMode of ['auto', 'native'] as const) {
  // `auto` picks sentinel progress on etcd < 3.4.31 (the Debian etcd is
  // 3.4.23); `native` forces WatchProgressRequest so its wire handling is
  // exercised here too (on such a server its ordering is not guaranteed, see
  // src/storage/etcd/progress.ts, but the suite's case does not race).
  runStoreConformance(`etcd3 (progress: ${progressMode})`, async () => {
    if (!etcd) throw new Error('etcd did not start');
    const store = await EtcdStore.connect({
      endpoints: [etcd.endpoint],
      prefix: `/conformance/${run}/${progressMode}/${++n}`,
      progressMode,
    });
    return { store, cleanup: () => store.close() };
  });
}
