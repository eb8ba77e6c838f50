/**
 * Which mechanism answers {@link StoreWatch.requestProgress}.
 *
 * etcd 3.4 added WatchProgressRequest, but until 3.4.31 / 3.5.13 its answer is
 * not a progress guarantee: the server replied on a side channel with its
 * current revision, overtaking events still queued for the stream and ignoring
 * watchers still catching up (etcd-io/etcd#15220, fixed by #15237, and #17557
 * for new watchers). Kubernetes gates consistent reads from its watch cache on
 * the same versions. On an older server the watch instead learns its progress
 * from a sentinel key it writes inside its own watched range (keys.ts): once
 * that write's event arrives, every earlier event has arrived, because a
 * single etcd watcher delivers in revision order.
 */
export type ProgressMode = 'native' | 'sentinel';

/** True when `version` (e.g. "3.5.13") answers progress requests in stream order. */
export function hasOrderedProgress(version: string): boolean {
  const m = /^(\d+)\.(\d+)\.(\d+)/.exec(version);
  if (!m) return false;
  const [major, minor, patch] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (major !== 3) return major > 3;
  if (minor === 4) return patch >= 31;
  if (minor === 5) return patch >= 13;
  return minor > 5;
}

/** Native progress requests only when every member supports them; a mixed cluster gets sentinels. */
export function progressModeFor(versions: readonly string[]): ProgressMode {
  return versions.length > 0 && versions.every(hasOrderedProgress) ? 'native' : 'sentinel';
}
