/**
 * The API flavor an etcd prefix holds (as the data dir's `api-flavor` file
 * does for the embedded store): objects under the prefix carry that flavor's
 * group names, labels and secret types, so every server on the prefix must
 * speak it. Kept in one key beside (not under) the prefix, `api-flavor:<prefix>`,
 * so no listing of the prefix sees it. A prefix that holds keys but no record
 * was written before the record existed, by the spec's (orch) flavor.
 */
import type { EtcdConnection } from './connection.ts';
import { prefixEnd } from './keys.ts';

export function flavorRecordKey(prefix: string): Buffer {
  return Buffer.from(`api-flavor:${prefix}`, 'utf8');
}

/**
 * The flavor recorded for `prefix`, recording `flavor` first when the prefix
 * has none (and `legacyFlavor` when it already holds keys). Two servers
 * racing on a new prefix agree: the record is created only if absent.
 */
export async function claimFlavorRecord(connection: EtcdConnection, prefix: string, flavor: string, legacyFlavor: string): Promise<string> {
  const key = flavorRecordKey(prefix);
  const read = async (): Promise<string | undefined> => {
    const res = await connection.call(true, () => connection.client.kv.range({ key }));
    return res.kvs[0]?.value.toString('utf8');
  };
  const recorded = await read();
  if (recorded !== undefined) return recorded;
  const start = Buffer.from(prefix, 'utf8');
  const used = await connection.call(true, () => connection.client.kv.range({ key: start.length > 0 ? start : Buffer.from([0]), range_end: prefixEnd(start), count_only: true }));
  const claim = Number(used.count) > 0 ? legacyFlavor : flavor;
  // Not retried unless unsent: a lost answer is settled by reading the record again.
  const res = await connection.call(false, () =>
    connection.client.kv.txn({
      compare: [{ key, target: 'Version', result: 'Equal', version: 0 }],
      success: [{ request_put: { key, value: Buffer.from(claim, 'utf8') } }],
      failure: [],
    }),
  );
  return res.succeeded ? claim : ((await read()) ?? claim);
}
