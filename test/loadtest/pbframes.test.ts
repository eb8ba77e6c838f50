/**
 * The watch benchmark's Protobuf frame scanner (loadtest/watch/pbframes.ts):
 * fed frames made by the server's own encoders, in every chunking, it must
 * find each event's type, name and resourceVersion — and report, never
 * skip, a frame it cannot read.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { decodeWatchEvent, encodeMessageBytes, encodeWatchEvent, watchFrameFromMessage, type JsonObject } from '../../src/protobuf/index.ts';
import { EventFields, eventText, FrameStream, isErrorEvent, MAX_FRAME_BYTES, scanWatchEvent, statusSummary, type EventText } from '../../loadtest/watch/pbframes.ts';

const CM = { group: '', version: 'v1', kind: 'ConfigMap' };
const STATUS = { group: '', version: 'v1', kind: 'Status' };

/** A ConfigMap as the benchmark's writer makes them (~1 KiB), as the server stores it. */
function configMap(name: string, rv: string, extraMeta: JsonObject = {}): JsonObject {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name, namespace: 'default', uid: `uid-${name}`, resourceVersion: rv, creationTimestamp: '2024-05-01T10:00:00Z', ...extraMeta },
    data: { sent: '1714557600123', fill: 'x'.repeat(900) },
  };
}

const STATUS_GONE: JsonObject = { apiVersion: 'v1', kind: 'Status', metadata: {}, status: 'Failure', message: 'too old resource version: 5 (90)', reason: 'Expired', code: 410 };

/** What the scanner should find, frame by frame; `error` for ERROR events is the Status summary. */
interface Expected extends EventText {
  readonly error?: string;
}

const CASES: Array<{ frame: Uint8Array; want: Expected }> = [
  { frame: encodeWatchEvent('ADDED', configMap('wf3h1-0', '101'), CM), want: { type: 'ADDED', name: 'wf3h1-0', resourceVersion: '101' } },
  // A negative int64 (generation) takes a 10-byte varint: skipped, not misread.
  {
    frame: encodeWatchEvent('MODIFIED', configMap('wf3h1-12345', '102', { generation: -1, labels: { a: 'b' } }), CM),
    want: { type: 'MODIFIED', name: 'wf3h1-12345', resourceVersion: '102' },
  },
  // How the shards make frames (from the object's message bytes).
  { frame: watchFrameFromMessage('ADDED', CM, encodeMessageBytes(configMap('wf3h1-7', '103'), CM)), want: { type: 'ADDED', name: 'wf3h1-7', resourceVersion: '103' } },
  {
    frame: encodeWatchEvent('BOOKMARK', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { resourceVersion: '104', annotations: { 'orch.io/initial-events-end': 'true' } } }, CM),
    // Empty strings are written, as the original writes them: the name is there, empty.
    want: { type: 'BOOKMARK', name: '', resourceVersion: '104' },
  },
  { frame: encodeWatchEvent('DELETED', configMap('other-1', '105'), CM), want: { type: 'DELETED', name: 'other-1', resourceVersion: '105' } },
  { frame: encodeWatchEvent('ERROR', STATUS_GONE, STATUS), want: { type: 'ERROR', name: null, resourceVersion: null, error: 'Expired: too old resource version: 5 (90)' } },
];

const STREAM = Buffer.concat(CASES.map((c) => c.frame));
const EXPECTED = CASES.map((c) => c.want);

/** Runs the chunks through one FrameStream and scans every frame, as a watcher does. */
function consume(chunks: Buffer[]): { events: Expected[]; errors: string[]; pending: number } {
  const frames = new FrameStream();
  const f = new EventFields();
  const events: Expected[] = [];
  const errors: string[] = [];
  for (const chunk of chunks) {
    const broken = frames.push(chunk, (buf, start, end) => {
      const err = scanWatchEvent(buf, start, end, f);
      if (err !== null) errors.push(err);
      else if (isErrorEvent(buf, f)) events.push({ ...eventText(buf, f), error: statusSummary(buf, f) });
      else events.push(eventText(buf, f));
    });
    if (broken !== null) errors.push(broken);
  }
  return { events, errors, pending: frames.pending };
}

test('the test frames decode to what the scanner is expected to find', () => {
  for (const { frame, want } of CASES) {
    const ev = decodeWatchEvent(frame);
    const md = (ev.object['metadata'] ?? {}) as JsonObject;
    assert.equal(ev.type, want.type);
    if (want.type !== 'ERROR') {
      assert.equal(md['name'] ?? '', want.name);
      assert.equal(md['resourceVersion'], want.resourceVersion);
    }
  }
  assert.ok(CASES[0]!.frame.length > 1000, 'frames of ~1 KiB: multi-byte lengths');
});

test('type, name and resourceVersion of every frame, all in one chunk', () => {
  assert.deepEqual(consume([STREAM]), { events: EXPECTED, errors: [], pending: 0 });
});

test('split in two at every byte boundary', () => {
  for (let i = 0; i <= STREAM.length; i++) {
    const got = consume([STREAM.subarray(0, i), STREAM.subarray(i)]);
    assert.deepEqual(got, { events: EXPECTED, errors: [], pending: 0 }, `split at ${i} of ${STREAM.length}`);
  }
});

test('one byte per chunk', () => {
  const chunks = Array.from({ length: STREAM.length }, (_, i) => STREAM.subarray(i, i + 1));
  assert.deepEqual(consume(chunks), { events: EXPECTED, errors: [], pending: 0 });
});

test('every frame split around each of its own boundaries, across three chunks', () => {
  // Each frame's length prefix and start in a chunk of their own, the rest with the next frame.
  let at = 0;
  for (const { frame } of CASES) {
    for (const cut of [1, 3, 4, 5, frame.length - 1]) {
      const got = consume([STREAM.subarray(0, at + cut), STREAM.subarray(at + cut, at + cut + 2), STREAM.subarray(at + cut + 2)]);
      assert.deepEqual(got, { events: EXPECTED, errors: [], pending: 0 }, `frame at ${at}, cut ${cut}`);
    }
    at += frame.length;
  }
});

test('a stream cut short leaves the partial frame pending, nothing made up', () => {
  const got = consume([STREAM.subarray(0, STREAM.length - 10)]);
  assert.deepEqual(got.events, EXPECTED.slice(0, -1));
  assert.equal(got.pending, CASES[CASES.length - 1]!.frame.length - 10);
  assert.deepEqual(got.errors, []);
});

/** A frame of the given WatchEvent bytes. */
function frameOf(event: Buffer): Buffer {
  const head = Buffer.alloc(4);
  head.writeUInt32BE(event.length, 0);
  return Buffer.concat([head, event]);
}

test('unreadable frames are reported, and the frames after them still read', () => {
  const good = Buffer.from(CASES[0]!.frame);
  const notEnveloped = Buffer.from(good);
  // The "k8s\0" prefix is the first bytes of RawExtension.raw: find and break it.
  notEnveloped[notEnveloped.indexOf(Buffer.from('k8s\0', 'latin1'))] = 0x4a;
  const truncatedInside = frameOf(good.subarray(4, good.length - 20));
  const garbage = frameOf(Buffer.from([0x0a, 0x05, 0x41, 0x44]));
  const noObject = frameOf(Buffer.from([0x0a, 0x05, ...Buffer.from('ADDED')]));
  const got = consume([Buffer.concat([notEnveloped, truncatedInside, garbage, noObject, good])]);
  assert.equal(got.errors.length, 4, got.errors.join(' | '));
  assert.match(got.errors[0]!, /k8s/);
  assert.match(got.errors[2]!, /WatchEvent: field 1: 5 bytes, 2 left/);
  assert.equal(got.errors[3], 'WatchEvent without an object');
  assert.deepEqual(got.events, [EXPECTED[0]]);
});

test('an impossible length prefix breaks the stream for good', () => {
  const bad = Buffer.alloc(4);
  bad.writeUInt32BE(MAX_FRAME_BYTES + 1, 0);
  const got = consume([Buffer.concat([Buffer.from(CASES[0]!.frame), bad]), Buffer.from(CASES[0]!.frame)]);
  assert.deepEqual(got.events, [EXPECTED[0]]);
  assert.equal(got.errors.length, 2, 'the break, then every later chunk refused');
  assert.match(got.errors[0]!, /cannot be framed/);
});
