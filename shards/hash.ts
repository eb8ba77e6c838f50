/**
 * shardFor maps a resource type (`<group>/<resource>`, '' group for core) onto
 * one of `shardCount` shards with FNV-1a, so every process agrees on the
 * placement without coordination.
 */
export function shardFor(groupResource: string, shardCount: number): number {
  if (shardCount <= 1) return 0;
  let h = 0x811c9dc5;
  for (let i = 0; i < groupResource.length; i++) {
    h ^= groupResource.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return (h >>> 0) % shardCount;
}
