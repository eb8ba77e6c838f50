import { runShardSuite } from './shard-suite.ts';
import { startEtcd } from '../support/etcd-server.ts';

runShardSuite('etcd3', async () => {
  const etcd = await startEtcd();
  return {
    config: { backend: 'etcd3', endpoints: [etcd.endpoint], prefix: `/shards-${process.pid}` },
    cleanup: () => etcd.stop(),
  };
});
