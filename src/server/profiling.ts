/**
 * `/debug/pprof`-style profiling endpoints (`--profiling`, the original's
 * default true), served to whoever the authorizer lets read these
 * non-resource paths (RBAC: cluster-admin and system:masters only):
 * - `GET /debug/pprof/profile?seconds=N` (default 30, 1..60): a CPU profile
 *   of the thread that serves the request, in V8's `.cpuprofile` JSON (open it
 *   in Chrome DevTools or speedscope), through node:inspector;
 * - `GET /debug/pprof/heap`: a heap snapshot of that thread (`.heapsnapshot`);
 * - `GET /debug/pprof/allocs?seconds=N` (default 30, 1..60): where that
 *   thread allocated over N seconds, garbage included (V8's sampling heap
 *   profile, `.heapprofile`, for DevTools' Memory panel); `&interval=B`
 *   bytes between samples (default 256 KiB, 4 KiB..64 MiB; finer ones allow
 *   proportionally shorter windows, down to 1 s, so memory stays bounded);
 * - either with `&shard=N` (`?shard=N`; 0 .. --shards - 1, the `shard` label
 *   of apiserver_shard_queue_depth): the same of shard thread N instead,
 *   asked over the serving thread's channel to it. An unknown shard is a 400.
 *   A shard's CPU profile runs its full seconds even if the client leaves.
 * One profile at a time per thread (the inspector has one profiler): a second
 * request for the same thread meanwhile gets 429 with Retry-After. The
 * profile is bounded by its seconds, so it ends within the request timeout's
 * order.
 */
import type { RequestContext } from './context.ts';
import { errors } from '../api/status.ts';
import {
  DEFAULT_ALLOCATION_INTERVAL_BYTES,
  MAX_ALLOCATION_INTERVAL_BYTES,
  MAX_PROFILE_SECONDS,
  MIN_ALLOCATION_INTERVAL_BYTES,
  maxAllocationSeconds,
  takeProfile,
  type ProfileKind,
  type ProfileSpec,
} from './thread-profile.ts';

export const PROFILING_PREFIX = '/debug/pprof';
const DEFAULT_SECONDS = 30;
const PROFILE_FILE_NAMES: Readonly<Record<ProfileKind, string>> = { cpu: 'profile.cpuprofile', heap: 'heap.heapsnapshot', allocs: 'allocs.heapprofile' };

/** Takes a profile in shard thread `index`; null when that thread is already profiling. */
export type ShardProfiler = (index: number, spec: ProfileSpec) => Promise<Uint8Array | null>;

export interface ProfilingDeps {
  /** How many shard threads there are (valid `shard` values: 0 .. count - 1). */
  readonly shardCount: number;
  readonly profileShard: ShardProfiler;
}

export function profilingHandler(deps: ProfilingDeps): (ctx: RequestContext, path: string) => Promise<void> {
  return (ctx, path) => handleProfiling(ctx, path, deps);
}

async function handleProfiling(ctx: RequestContext, path: string, deps: ProfilingDeps): Promise<void> {
  const sub = path.slice(PROFILING_PREFIX.length);
  if (sub !== '/profile' && sub !== '/heap' && sub !== '/allocs' && sub !== '' && sub !== '/') throw errors.notFoundMessage();
  if (sub === '' || sub === '/') {
    ctx.status = 200;
    ctx.res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' });
    ctx.res.end(
      'profile?seconds=N: CPU profile (.cpuprofile) of the serving thread\nheap: heap snapshot (.heapsnapshot) of the serving thread\n' +
        'allocs?seconds=N[&interval=B]: allocations sampled every B bytes over N seconds, garbage included (.heapprofile) of the serving thread\n' +
        `either with &shard=N (0..${deps.shardCount - 1}): of shard thread N\n`,
    );
    return;
  }
  const kind: ProfileKind = sub === '/profile' ? 'cpu' : sub === '/allocs' ? 'allocs' : 'heap';
  let intervalBytes: number | undefined;
  if (kind === 'allocs') {
    const raw = ctx.req.query.get('interval');
    intervalBytes = DEFAULT_ALLOCATION_INTERVAL_BYTES;
    if (raw !== null) {
      if (!/^[0-9]{1,9}$/.test(raw) || Number(raw) < MIN_ALLOCATION_INTERVAL_BYTES || Number(raw) > MAX_ALLOCATION_INTERVAL_BYTES) {
        throw errors.badRequest(`interval must be a number of bytes from ${MIN_ALLOCATION_INTERVAL_BYTES} to ${MAX_ALLOCATION_INTERVAL_BYTES}`);
      }
      intervalBytes = Number(raw);
    }
  }
  // A finer allocation sampling keeps more samples a second: its window is shorter, so a profile's memory stays bounded.
  const maxSeconds = intervalBytes === undefined ? MAX_PROFILE_SECONDS : maxAllocationSeconds(intervalBytes);
  let seconds = Math.min(DEFAULT_SECONDS, maxSeconds);
  if (kind !== 'heap') {
    const raw = ctx.req.query.get('seconds');
    if (raw !== null) {
      if (!/^[0-9]{1,6}$/.test(raw) || Number(raw) < 1 || Number(raw) > maxSeconds) {
        throw errors.badRequest(`seconds must be an integer from 1 to ${maxSeconds}${intervalBytes === undefined || maxSeconds === MAX_PROFILE_SECONDS ? '' : ` at an interval of ${intervalBytes} bytes`}`);
      }
      seconds = Number(raw);
    }
  }
  const spec: ProfileSpec = { kind, seconds, intervalBytes };
  const shardArg = ctx.req.query.get('shard');
  let shard: number | undefined;
  if (shardArg !== null) {
    if (!/^[0-9]{1,6}$/.test(shardArg) || Number(shardArg) >= deps.shardCount) throw errors.badRequest(`unknown shard ${JSON.stringify(shardArg)}: shards are 0 to ${deps.shardCount - 1}`);
    shard = Number(shardArg);
  }
  const body =
    shard === undefined
      ? await takeProfile(spec, (stop) => ctx.res.onClose(stop))
      : await deps.profileShard(shard, spec);
  if (body === null) throw errors.tooManyRequests(`a profile is already being taken on ${shard === undefined ? 'this thread' : `shard ${shard}`}`, Math.min(seconds, 5));
  if (ctx.res.closed) return;
  ctx.status = 200;
  const name = `${shard === undefined ? '' : `shard-${shard}-`}${PROFILE_FILE_NAMES[kind]}`;
  ctx.res.writeHead(200, { 'content-type': 'application/json', 'content-disposition': `attachment; filename="${name}"`, 'content-length': String(body.byteLength) });
  ctx.res.end(body);
}
