/**
 * WatcherGroups tracks the watchers of one watch cache.
 *
 * Live watchers with the same predicate, encoding and bookmark choice form a
 * group; an event batch is filtered and encoded once per group and handed to
 * the output once with the list of member ids, so a thousand watchers of one
 * prefix cost one encoding and one message per batch. Groups are indexed by
 * namespace so an event is tested only against groups that can want it.
 */
import type { Revision } from '../storage/interface.ts';
import type { CachedObject, ObjectCodec } from './cached-object.ts';
import type { CacheEvent, CacheEventType } from './event-window.ts';
import type { Predicate } from './predicate.ts';

/** Encodes watch event frames in one wire format (JSON lines, Protobuf frames, ...). */
export interface FrameEncoder {
  event(type: CacheEventType, obj: CachedObject): Uint8Array;
  bookmark(codec: ObjectCodec, revision: Revision, initialEventsEnd: boolean): Uint8Array;
}

export type FrameEncoders = ReadonlyMap<string, FrameEncoder>;

/** Where watch output goes (in a shard: batched onto the port to the main thread). */
export interface WatchOutput {
  /** Frames for the watchers `ids`, in order; afterwards they are current up to `revision`. */
  send(ids: readonly number[], frames: readonly Uint8Array[], revision: Revision): void;
  /** Ends the watchers `ids` with `error`. */
  close(ids: readonly number[], error: Error): void;
}

export interface WatchRequest {
  id: number;
  /** Events after this revision; null for the initial state followed by live events. */
  startRevision: Revision | null;
  predicate: Predicate;
  encoding: string;
  bookmarks: boolean;
  /** After the initial state, send a bookmark marked as the end of initial events. */
  initialEventsEnd: boolean;
}

class Group {
  readonly members = new Set<number>();
  #ids: number[] | null = null;
  constructor(
    readonly key: string,
    readonly predicate: Predicate,
    readonly encoder: FrameEncoder,
    readonly encoding: string,
    readonly bookmarks: boolean,
  ) {}
  /** Member ids as an array that is never mutated once handed out. */
  ids(): readonly number[] {
    if (this.#ids === null) this.#ids = [...this.members];
    return this.#ids;
  }
  add(id: number): void {
    this.members.add(id);
    this.#ids = null;
  }
  delete(id: number): void {
    this.members.delete(id);
    this.#ids = null;
  }
}

/** Which event, if any, a watcher with `pred` sees for `ev` (the original's rules). */
export function transition(pred: Predicate, ev: CacheEvent): CacheEventType | null {
  const cur = ev.type !== 'DELETED' && pred.matches(ev.object);
  const old = ev.prev !== null && pred.matches(ev.prev);
  if (cur && !old) return 'ADDED';
  if (cur && old) return 'MODIFIED';
  if (!cur && old) return 'DELETED';
  return null;
}

export class WatcherGroups {
  readonly #encoders: FrameEncoders;
  readonly #output: WatchOutput;
  readonly #codec: ObjectCodec;
  readonly #groups = new Map<string, Group>();
  readonly #allNamespaces = new Set<Group>();
  readonly #byNamespace = new Map<string, Set<Group>>();
  /** Groups pinned to an indexed field value, keyed `field=value`; kept out of the two maps above. */
  readonly #byField = new Map<string, Set<Group>>();
  readonly #indexedFields = new Set<string>();
  readonly #groupOf = new Map<number, Group>();
  #pending = new Map<number, WatchRequest>();

  constructor(encoders: FrameEncoders, output: WatchOutput, codec: ObjectCodec) {
    this.#encoders = encoders;
    this.#output = output;
    this.#codec = codec;
  }

  get count(): number {
    return this.#groupOf.size + this.#pending.size;
  }

  /**
   * The object a frame of `type` carries: a DELETED that comes from a selector
   * transition carries the previous state at the event's revision.
   */
  #frameObject(ev: CacheEvent, type: CacheEventType): CachedObject {
    if (type === 'DELETED' && ev.type !== 'DELETED') return this.#codec.represent(ev.prev!, ev.revision);
    return ev.object;
  }

  #encoder(encoding: string): FrameEncoder {
    const enc = this.#encoders.get(encoding);
    if (enc === undefined) throw new Error(`no frame encoder for ${encoding}`);
    return enc;
  }

  #join(req: WatchRequest): void {
    const key = `${req.predicate.id}|${req.encoding}|${req.bookmarks ? 'b' : ''}`;
    let group = this.#groups.get(key);
    if (group === undefined) {
      group = new Group(key, req.predicate, this.#encoder(req.encoding), req.encoding, req.bookmarks);
      this.#groups.set(key, group);
      this.#indexOf(group, true);
    }
    group.add(req.id);
    this.#groupOf.set(req.id, group);
  }

  #dropIfEmpty(group: Group): void {
    if (group.members.size > 0) return;
    this.#groups.delete(group.key);
    this.#indexOf(group, false);
  }

  /** Adds a group to (or removes it from) the index that finds it for an event. */
  #indexOf(group: Group, add: boolean): void {
    const pinned = group.predicate.pinned;
    const ns = group.predicate.namespace;
    let map: Map<string, Set<Group>> | null;
    let key: string;
    if (pinned !== undefined) {
      map = this.#byField;
      key = `${pinned.field}=${pinned.value}`;
      if (add) this.#indexedFields.add(pinned.field);
    } else if (ns !== undefined) {
      map = this.#byNamespace;
      key = ns;
    } else {
      map = null;
      key = '';
    }
    if (map === null) {
      if (add) this.#allNamespaces.add(group);
      else this.#allNamespaces.delete(group);
      return;
    }
    let set = map.get(key);
    if (add) {
      if (set === undefined) map.set(key, (set = new Set()));
      set.add(group);
    } else {
      set?.delete(group);
      if (set?.size === 0) map.delete(key);
    }
  }

  /** Sends the initial state as synthetic ADDED events, then makes the watcher live. */
  addWithInitialState(req: WatchRequest, snapshot: readonly CachedObject[], revision: Revision): void {
    this.#start(req, revision, (encoder) => snapshot.map((obj) => encoder.event('ADDED', obj)));
  }

  /** Sends the window's matching events after the start revision, then makes the watcher live. */
  addFrom(req: WatchRequest, events: Iterable<CacheEvent>, revision: Revision): void {
    this.#start(req, revision, (encoder) => {
      const frames: Uint8Array[] = [];
      for (const ev of events) {
        const type = transition(req.predicate, ev);
        if (type !== null) frames.push(encoder.event(type, this.#frameObject(ev, type)));
      }
      return frames;
    });
  }

  /**
   * Sends a new watcher its first frames and makes it live. A frame it cannot
   * encode (an object its encoding cannot carry) ends this watcher alone with
   * the error; it never joins a group.
   */
  #start(req: WatchRequest, revision: Revision, catchUp: (encoder: FrameEncoder) => Uint8Array[]): void {
    let frames: Uint8Array[];
    try {
      const encoder = this.#encoder(req.encoding);
      frames = catchUp(encoder);
      if (req.initialEventsEnd) frames.push(encoder.bookmark(this.#codec, revision, true));
    } catch (err) {
      this.#output.close([req.id], asError(err));
      return;
    }
    if (frames.length > 0) this.#output.send([req.id], frames, revision);
    this.#join(req);
  }

  /** Parks a watcher whose start revision the cache has not reached yet. */
  addPending(req: WatchRequest): void {
    this.#pending.set(req.id, req);
  }

  /** Starts the parked watchers whose start revision is now reached. */
  promotePending(revision: Revision, after: (rev: Revision) => Iterable<CacheEvent>): void {
    if (this.#pending.size === 0) return;
    for (const [id, req] of this.#pending) {
      if (req.startRevision !== null && req.startRevision <= revision) {
        this.#pending.delete(id);
        this.addFrom(req, after(req.startRevision), revision);
      }
    }
  }

  /**
   * Fans a batch of events out to the live groups. A group whose encoding
   * fails on an event gets the frames before it, then its watchers end with
   * the error; every other group, of any encoding, gets the whole batch.
   */
  dispatch(batch: readonly CacheEvent[], revision: Revision): void {
    if (this.#groups.size === 0) return;
    const out = new Map<Group, Uint8Array[]>();
    const failed = new Map<Group, Error>();
    // Each frame (or the error making it) once per encoding, event type and event.
    const encoded = new Map<string, Map<CacheEvent, Uint8Array | Error>>();
    const consider = (group: Group, ev: CacheEvent): void => {
      if (failed.has(group)) return;
      let frame: Uint8Array | Error | undefined;
      try {
        const type = transition(group.predicate, ev);
        if (type === null) return;
        const cacheKey = `${group.encoding}:${type}`;
        let perEvent = encoded.get(cacheKey);
        if (perEvent === undefined) encoded.set(cacheKey, (perEvent = new Map()));
        frame = perEvent.get(ev);
        if (frame === undefined) {
          try {
            frame = group.encoder.event(type, this.#frameObject(ev, type));
          } catch (err) {
            frame = asError(err);
          }
          perEvent.set(ev, frame);
        }
      } catch (err) {
        frame = asError(err); // the group's predicate failed on this event
      }
      if (frame instanceof Error) {
        failed.set(group, frame);
        return;
      }
      let frames = out.get(group);
      if (frames === undefined) out.set(group, (frames = []));
      frames.push(frame);
    };
    for (const ev of batch) {
      for (const group of this.#allNamespaces) consider(group, ev);
      const nsGroups = this.#byNamespace.get(ev.object.namespace);
      if (nsGroups !== undefined) for (const group of nsGroups) consider(group, ev);
      if (this.#byField.size > 0) {
        for (const field of this.#indexedFields) {
          // Both the new and the previous value: a pod moving off a node must reach that node's watchers.
          const now = ev.object.field(field);
          const before = ev.prev?.field(field);
          if (now !== undefined) {
            const set = this.#byField.get(`${field}=${now}`);
            if (set !== undefined) for (const group of set) consider(group, ev);
          }
          if (before !== undefined && before !== now) {
            const set = this.#byField.get(`${field}=${before}`);
            if (set !== undefined) for (const group of set) consider(group, ev);
          }
        }
      }
    }
    for (const [group, frames] of out) this.#output.send(group.ids(), frames, revision);
    for (const [group, error] of failed) this.#endGroup(group, error);
  }

  /** Sends a bookmark at `revision` to every live watcher that asked for bookmarks. */
  bookmark(revision: Revision): void {
    for (const group of [...this.#groups.values()]) {
      if (!group.bookmarks) continue;
      let frame: Uint8Array;
      try {
        frame = group.encoder.bookmark(this.#codec, revision, false);
      } catch (err) {
        this.#endGroup(group, asError(err));
        continue;
      }
      this.#output.send(group.ids(), [frame], revision);
    }
  }

  /** Ends every watcher of one group with `error` (its encoding failed); other groups are untouched. */
  #endGroup(group: Group, error: Error): void {
    const ids = group.ids();
    for (const id of ids) {
      this.#groupOf.delete(id);
      group.delete(id);
    }
    this.#dropIfEmpty(group);
    this.#output.close(ids, error);
  }

  remove(id: number): void {
    if (this.#pending.delete(id)) return;
    const group = this.#groupOf.get(id);
    if (group === undefined) return;
    this.#groupOf.delete(id);
    group.delete(id);
    this.#dropIfEmpty(group);
  }

  closeAll(error: Error): void {
    const ids = [...this.#groupOf.keys(), ...this.#pending.keys()];
    this.#groups.clear();
    this.#allNamespaces.clear();
    this.#byNamespace.clear();
    this.#byField.clear();
    this.#indexedFields.clear();
    this.#groupOf.clear();
    this.#pending = new Map();
    if (ids.length > 0) this.#output.close(ids, error);
  }
}

function asError(err: unknown): Error {
  return err instanceof Error ? err : new Error(String(err));
}
