/**
 * `/debug/pprof`-style profiling endpoints (`--profiling`, the original's
 * default true), served to whoever the authorizer lets read these
 * non-resource paths (RBAC: cluster-admin and system:masters only):
 * - `GET /debug/pprof/profile?seconds=N` (default 30, 1..60): a CPU profile
 *   of the thread that serves the request, in V8's `.cpuprofile` JSON (open it
 *   in Chrome DevTools or speedscope), through node:inspector;
 * - `GET /debug/pprof/heap`: a heap snapshot of that thread (`.heapsnapshot`).
 * One profile at a time per thread (the inspector has one profiler): a second
 * request meanwhile gets 429 with Retry-After. The profile is bounded by its
 * seconds, so it ends within the request timeout's order.
 */
import { Session } from 'node:inspector/promises';
import type { RequestContext } from './context.ts';
import { errors } from '../api/status.ts';

export const PROFILING_PREFIX = '/debug/pprof';
const DEFAULT_SECONDS = 30;
const MAX_SECONDS = 60;

let busy = false;

export async function handleProfiling(ctx: RequestContext, path: string): Promise<void> {
  const sub = path.slice(PROFILING_PREFIX.length);
  if (sub !== '/profile' && sub !== '/heap' && sub !== '' && sub !== '/') throw errors.notFoundMessage();
  if (sub === '' || sub === '/') {
    ctx.status = 200;
    ctx.res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' });
    ctx.res.end('profile?seconds=N: CPU profile (.cpuprofile)\nheap: heap snapshot (.heapsnapshot)\n');
    return;
  }
  let seconds = DEFAULT_SECONDS;
  if (sub === '/profile') {
    const raw = ctx.req.query.get('seconds');
    if (raw !== null) {
      if (!/^[0-9]{1,6}$/.test(raw) || Number(raw) < 1 || Number(raw) > MAX_SECONDS) throw errors.badRequest(`seconds must be an integer from 1 to ${MAX_SECONDS}`);
      seconds = Number(raw);
    }
  }
  if (busy) throw errors.tooManyRequests('a profile is already being taken on this thread', Math.min(seconds, 5));
  busy = true;
  const session = new Session();
  try {
    session.connect();
    const body = sub === '/profile' ? await cpuProfile(session, seconds, ctx) : await heapSnapshot(session);
    if (ctx.res.closed) return;
    ctx.status = 200;
    const name = sub === '/profile' ? 'profile.cpuprofile' : 'heap.heapsnapshot';
    ctx.res.writeHead(200, { 'content-type': 'application/json', 'content-disposition': `attachment; filename="${name}"`, 'content-length': String(body.byteLength) });
    ctx.res.end(body);
  } finally {
    session.disconnect();
    busy = false;
  }
}

async function cpuProfile(session: Session, seconds: number, ctx: RequestContext): Promise<Uint8Array> {
  await session.post('Profiler.enable');
  await session.post('Profiler.start');
  // Ends early when the client goes away: nobody would read the profile.
  await new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, seconds * 1000);
    ctx.res.onClose(() => {
      clearTimeout(timer);
      resolve();
    });
  });
  const { profile } = await session.post('Profiler.stop');
  await session.post('Profiler.disable');
  return Buffer.from(JSON.stringify(profile));
}

async function heapSnapshot(session: Session): Promise<Uint8Array> {
  const chunks: Buffer[] = [];
  session.on('HeapProfiler.addHeapSnapshotChunk', (m) => chunks.push(Buffer.from(m.params.chunk)));
  await session.post('HeapProfiler.takeHeapSnapshot', { reportProgress: false });
  return Buffer.concat(chunks);
}
