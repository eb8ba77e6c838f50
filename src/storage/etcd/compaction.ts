/**
 * The shared compaction clock on etcd, for {@link Compactor}: the version of
 * one etcd key (the number of puts since it was created) is the clock, and a
 * transaction comparing that version is the compare-and-swap. This is the
 * protocol of kube-apiserver's compactor, down to the default key name
 * `compact_rev_key` and its value (the target revision in decimal), so an
 * orch-apiserver and a kube-apiserver sharing one etcd also take turns.
 *
 * The key is deliberately outside the store prefix: compaction is global to
 * the etcd cluster, whatever prefix a process stores its data under.
 */
import type { CompactionClaim, CompactionCoordinator } from '../compactor.ts';
import type { Revision } from '../interface.ts';
import type { EtcdConnection } from './connection.ts';

export const DEFAULT_COMPACTION_KEY = 'compact_rev_key';

export function etcdCompactionCoordinator(
  connection: EtcdConnection,
  key: string = DEFAULT_COMPACTION_KEY,
): CompactionCoordinator {
  const etcdKey = Buffer.from(key, 'utf8');
  return {
    async claim(expectedClock: number, revision: Revision): Promise<CompactionClaim> {
      // Not retried unless unsent: a lost answer must not turn a win into a loss.
      const res = await connection.call(false, () =>
        connection.client.kv.txn({
          compare: [{ key: etcdKey, target: 'Version', result: 'Equal', version: expectedClock }],
          success: [{ request_put: { key: etcdKey, value: Buffer.from(String(revision)) } }],
          failure: [{ request_range: { key: etcdKey } }],
        }),
      );
      const now = Number(res.header.revision);
      if (res.succeeded) return { won: true, clock: expectedClock + 1, revision: now };
      const current = res.responses[0]?.response_range.kvs[0];
      return { won: false, clock: current ? Number(current.version) : 0, revision: now };
    },
  };
}
