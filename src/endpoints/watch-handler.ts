/**
 * HTTP watch: a chunked stream of watch event documents fed by the shard's
 * frames, which arrive already encoded (one encoding per event, shared by all
 * watchers). A watcher that does not keep up is closed once its buffered
 * output passes a bound, so it can never stall others or grow memory without
 * limit; the client resumes from the last resourceVersion it saw.
 */
import type { RequestContext } from '../server/context.ts';
import type { ResourceType } from '../registry/resource-type.ts';
import type { KObject } from '../registry/object.ts';
import type { ShardAccess } from '../../shards/shard-access.ts';
import type { Filter, ShardError, WatchStart } from '../../shards/protocol.ts';
import { parseResourceVersion } from './read-options.ts';
import { errors, StatusError } from '../api/status.ts';
import { statusFromShardError } from '../registry/generic-store.ts';
import { ShardCallError } from '../../shards/shard-handle.ts';
import { parseStoredJson, type WatchEncoding } from './representation.ts';
import { internalServerError } from '../server/filters/write-status.ts';
import { decodeListIntegers, queryBool, queryOptionalBool } from '../api/query-params.ts';
import { setLongTimeout } from '../server/long-timer.ts';
import { watchTimeoutMs } from '../server/filters/with-timeout.ts';
import { relabelFrames } from '../registry/conversions/relabel.ts';
import type { RequestDrain } from '../server/lifecycle.ts';
import { ByteRate } from './byte-rate.ts';

export interface WatchLimits {
  /** `--min-request-timeout` in seconds; a watch without timeoutSeconds lasts a random time in [min, 2*min). */
  minRequestTimeoutSeconds: number;
  /** Buffered bytes after which a slow watcher is closed. */
  maxBufferedBytes: number;
  /** This thread's requests to drain: a graceful shutdown ends the watch after its last whole frame. */
  drain?: RequestDrain | undefined;
  /** `--max-connection-bytes-per-sec` (0 or unset: unthrottled). */
  maxBytesPerSec?: number | undefined;
}

const encoder = new TextEncoder();
const SPACE = encoder.encode(' ');

/** The watch start for a request, per the spec's watch table and streaming lists. */
export function planWatch(query: URLSearchParams): { start: WatchStart; initialEventsEnd: boolean } {
  const rv = query.get('resourceVersion') ?? '';
  const match = query.get('resourceVersionMatch') ?? '';
  decodeListIntegers(query);
  // Booleans as the original reads them: present and not "0"/"false" is true (even empty).
  const wants = queryOptionalBool(query, 'sendInitialEvents');
  if (wants !== undefined) {
    if (match !== 'NotOlderThan') {
      throw errors.badRequest('resourceVersionMatch: Forbidden: sendInitialEvents requires setting resourceVersionMatch to NotOlderThan');
    }
    if (!queryBool(query, 'allowWatchBookmarks') && wants) {
      throw errors.badRequest('allowWatchBookmarks: Forbidden: sendInitialEvents requires setting allowWatchBookmarks to true');
    }
    if (!wants) {
      if (rv === '') throw errors.badRequest('resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided');
      return { start: { kind: 'from', revision: parseResourceVersion(rv) }, initialEventsEnd: false };
    }
    if (rv === '') return { start: { kind: 'initial', read: { kind: 'latest' } }, initialEventsEnd: true };
    const n = parseResourceVersion(rv);
    return { start: { kind: 'initial', read: n === 0 ? { kind: 'any' } : { kind: 'notOlderThan', revision: n } }, initialEventsEnd: true };
  }
  if (match !== '') {
    throw errors.badRequest('resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided');
  }
  if (rv === '') return { start: { kind: 'initial', read: { kind: 'latest' } }, initialEventsEnd: false };
  const n = parseResourceVersion(rv);
  if (n === 0) return { start: { kind: 'initial', read: { kind: 'any' } }, initialEventsEnd: false };
  return { start: { kind: 'from', revision: n }, initialEventsEnd: false };
}

/**
 * Re-encodes frames of a type stored in another type's shape (events.<suffix>
 * events live as core events). Frames always arrive as whole lines.
 */
function convertFrames(rt: ResourceType, frames: Uint8Array): Uint8Array {
  const relabeled = rt.conversion!.relabel && relabelFrames(frames, rt.conversion!.relabel);
  if (relabeled) return relabeled;
  const lines = Buffer.from(frames.buffer, frames.byteOffset, frames.byteLength).toString('utf8').split('\n');
  const out: string[] = [];
  for (const line of lines) {
    if (line === '') continue;
    const ev = parseStoredJson<{ type: string; object: KObject }>(line, 'a watch event');
    if (ev.type === 'BOOKMARK') ev.object = { ...ev.object, apiVersion: rt.apiVersion, kind: rt.kind };
    else if (ev.type !== 'ERROR') ev.object = rt.conversion!.fromStorage(ev.object);
    out.push(JSON.stringify(ev));
  }
  return encoder.encode(out.join('\n') + '\n');
}

/** convertFrames for a conversion that calls out: the batch's objects converted in one call. */
async function convertFramesMany(rt: ResourceType, frames: Uint8Array, many: (objs: KObject[]) => Promise<KObject[]>): Promise<Uint8Array> {
  const events = Buffer.from(frames.buffer, frames.byteOffset, frames.byteLength)
    .toString('utf8')
    .split('\n')
    .filter((l) => l !== '')
    .map((line) => parseStoredJson<{ type: string; object: KObject }>(line, 'a watch event'));
  const objects = events.filter((ev) => ev.type !== 'BOOKMARK' && ev.type !== 'ERROR');
  const converted = objects.length === 0 ? [] : await many(objects.map((ev) => ev.object));
  let i = 0;
  for (const ev of events) {
    if (ev.type === 'BOOKMARK') ev.object = { ...ev.object, apiVersion: rt.apiVersion, kind: rt.kind };
    else if (ev.type !== 'ERROR') ev.object = converted[i++]!;
  }
  return encoder.encode(events.map((ev) => JSON.stringify(ev)).join('\n') + '\n');
}

function shardErrorToStatus(rt: ResourceType, e: ShardError): StatusError {
  const mapped = statusFromShardError(new ShardCallError(e), rt, '');
  if (mapped instanceof StatusError) {
    // A watch whose history is gone is 410 Gone, as the original words it.
    if (e.code === 'Compacted') return errors.gone(`too old resource version: ${e.requestedRevision ?? ''} (${e.compactRevision ?? ''})`);
    return mapped;
  }
  return errors.internal(e.message);
}

export async function serveWatch(
  ctx: RequestContext,
  router: ShardAccess,
  rt: ResourceType,
  filter: Filter,
  limits: WatchLimits,
  encoding: WatchEncoding,
): Promise<void> {
  const { transform, contentType } = encoding;
  const q = ctx.req.query;
  const { start, initialEventsEnd } = planWatch(q);
  const bookmarks = queryBool(q, 'allowWatchBookmarks');
  // planWatch has checked timeoutSeconds; the duration is the timeout filter's rule (no limit: never).
  const durationMs = watchTimeoutMs(q, limits.minRequestTimeoutSeconds) ?? Infinity;

  const res = ctx.res;
  let headerSent = false;
  const sendHeader = (): void => {
    if (headerSent || res.closed) return;
    headerSent = true;
    ctx.status = 200;
    res.writeHead(200, { 'content-type': contentType, 'cache-control': 'no-cache, private', 'transfer-encoding': 'chunked' });
  };
  /**
   * Shows the client the watch is established before any event. Where the
   * stack cannot send a head alone (uWS), one space goes out: JSON stream
   * decoders skip whitespace between documents.
   */
  const establish = (): void => {
    sendHeader();
    if (res.closed || res.flushHead()) return;
    if (contentType.startsWith('application/json')) {
      res.write(SPACE);
      return;
    }
    // Protobuf frames have no filler. A client that asked for bookmarks and
    // starts after a known version (an informer resuming from its list) gets
    // a BOOKMARK at that version: true, and it carries the head, so the
    // client's watch call returns at once instead of at the first event.
    if (bookmarks && start.kind === 'from' && encoding.bookmarkFrame !== undefined) res.write(encoding.bookmarkFrame(start.revision));
  };

  /**
   * An error of the server's own that ended this watch (an event its
   * encoding cannot carry, a frame that could not be converted or written).
   * The client already got it as an ERROR event; it is thrown once the
   * stream is closed so the handler's error boundary logs and counts it.
   */
  let failure: unknown;
  await new Promise<void>((resolve) => {
    let done = false;
    let handle: { close(): void } | null = null;
    // --max-connection-bytes-per-sec: frames wait here, whole, until the rate lets them go.
    const rate = limits.maxBytesPerSec !== undefined && limits.maxBytesPerSec > 0 ? new ByteRate(limits.maxBytesPerSec) : null;
    const held: Uint8Array[] = [];
    let heldBytes = 0;
    let pumpTimer: NodeJS.Timeout | undefined;
    const pump = (): void => {
      pumpTimer = undefined;
      while (held.length > 0 && !done) {
        const wait = rate!.take(held[0]!.byteLength);
        if (wait > 0) {
          pumpTimer = setTimeout(pump, wait);
          return;
        }
        const frame = held.shift()!;
        heldBytes -= frame.byteLength;
        res.write(frame);
      }
    };
    const finish = (last?: Uint8Array): void => {
      if (done) return;
      done = true;
      ctx.watchInitialized();
      timer.cancel();
      unregister?.();
      clearTimeout(pumpTimer);
      handle?.close();
      if (!res.closed) {
        try {
          sendHeader();
          // A clean end: frames still held back by the rate go out whole first.
          for (const frame of held.splice(0)) res.write(frame);
          res.end(last);
        } catch (err) {
          failure ??= err;
          res.destroy();
        }
      }
      resolve();
    };
    /** Ends the stream with an ERROR event carrying `status`, in the stream's own encoding. */
    const endWithError = (status: StatusError): void => {
      let last: Uint8Array | undefined;
      try {
        last = encoding.errorFrame(status);
      } catch (err) {
        failure ??= err; // the stream then just ends: the client re-lists either way
      }
      finish(last);
    };
    // Not setTimeout: a client's timeoutSeconds may exceed its 2^31-1 ms and would fire at once.
    const timer = setLongTimeout(() => finish(), durationMs);
    // A graceful shutdown ends the watch as its timeout would: after the last whole frame.
    const unregister = limits.drain?.registerLongRunning(() => finish());
    res.onClose(() => finish());
    const convertMany = rt.conversion?.fromStorageMany;
    let pendingConversion: Promise<void> = Promise.resolve();
    handle = router.watch(
      { resource: rt.storageResource, start, filter, encoding: encoding.shard, bookmarks, initialEventsEnd },
      {
        onFrames: (frames) => {
          if (done) return;
          if (convertMany !== undefined) {
            // Conversion that calls out (a conversion webhook): in order, one batch after another.
            pendingConversion = pendingConversion.then(async () => {
              let served: Uint8Array;
              try {
                served = await convertFramesMany(rt, frames, convertMany);
              } catch (err) {
                if (done) return;
                failure = err;
                endWithError(internalServerError());
                return;
              }
              if (done) return;
              sendHeader();
              res.write(transform === undefined ? served : transform(served));
              ctx.watchInitialized();
            });
            return;
          }
          try {
            sendHeader();
            const served = rt.conversion === undefined ? frames : convertFrames(rt, frames);
            const out = transform === undefined ? served : transform(served);
            if (rate === null) res.write(out);
            else {
              held.push(out);
              heldBytes += out.byteLength;
              if (pumpTimer === undefined) pump();
            }
            // The first frames carry the initial state (priority and fairness releases the watch's seat).
            ctx.watchInitialized();
          } catch (err) {
            // This watcher alone: the shard's other watchers got the same frames.
            failure = err;
            endWithError(internalServerError());
            return;
          }
          if (res.bufferedBytes + heldBytes > limits.maxBufferedBytes) {
            // Too slow to keep: drop the connection and what it buffers (the
            // client resumes from the last version it saw), so one slow
            // reader never holds memory or delays the others.
            done = true;
            timer.cancel();
            unregister?.();
            clearTimeout(pumpTimer);
            handle?.close();
            res.destroy();
            resolve();
          }
        },
        // As the original: the stream is already 200, so the end is an ERROR event (410 Gone, ...).
        onEnd: (e) => {
          const status = shardErrorToStatus(rt, e);
          void pendingConversion.then(() => {
            if (status.code === 500) failure = status;
            endWithError(status);
          });
        },
      },
    );
    // The header goes out at once so that clients see the watch established.
    try {
      establish();
      // Starting from a revision: there is no initial state to send.
      if (start.kind === 'from') ctx.watchInitialized();
    } catch (err) {
      failure = err;
      finish();
    }
  });
  if (failure !== undefined) throw failure;
}
