/**
 * Watch frames as the original streams them for
 * `application/vnd.kubernetes.protobuf;stream=watch`: a 4-byte big-endian
 * length, then a bare WatchEvent {type = 1, object = 2 RawExtension {raw = 1}}
 * whose raw holds the enveloped object (prefix included).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { decodeObject, decodeWatchEvent, encodeObject, encodeWatchEvent, PROTOBUF_PREFIX } from '../../src/protobuf/index.ts';
import { CONFIGMAP, POD } from './fixtures.ts';

const POD_GVK = { group: '', version: 'v1', kind: 'Pod' };

/** Reads a varint at pos; returns [value, next position]. */
function varint(b: Buffer, pos: number): [number, number] {
  let v = 0;
  let shift = 0;
  for (;;) {
    const byte = b[pos++]!;
    v += (byte & 0x7f) * 2 ** shift;
    if (byte < 0x80) return [v, pos];
    shift += 7;
  }
}

test('a frame is length + WatchEvent{type, object{raw = enveloped object}}', () => {
  const frame = Buffer.from(encodeWatchEvent('MODIFIED', POD, POD_GVK));
  assert.equal(frame.readUInt32BE(0), frame.length - 4);
  let pos = 4;
  assert.equal(frame[pos++], 0x0a); // type = 1
  let len: number;
  [len, pos] = varint(frame, pos);
  assert.equal(frame.toString('utf8', pos, pos + len), 'MODIFIED');
  pos += len;
  assert.equal(frame[pos++], 0x12); // object = 2
  [len, pos] = varint(frame, pos);
  assert.equal(pos + len, frame.length, 'object is the last field');
  assert.equal(frame[pos++], 0x0a); // RawExtension.raw = 1
  [len, pos] = varint(frame, pos);
  const raw = frame.subarray(pos, pos + len);
  assert.deepEqual(raw.subarray(0, 4), Buffer.from(PROTOBUF_PREFIX));
  assert.deepEqual(Buffer.from(raw), Buffer.from(encodeObject(POD, POD_GVK)), 'raw is exactly the enveloped object');
});

test('frames decode back, also when several arrive in one buffer', () => {
  const frames = [
    encodeWatchEvent('ADDED', POD, POD_GVK),
    encodeWatchEvent('DELETED', POD, POD_GVK),
    encodeWatchEvent('BOOKMARK', { apiVersion: 'v1', kind: 'Pod', metadata: { resourceVersion: '12345', annotations: { 'orch.io/initial-events-end': 'true' } } }, POD_GVK),
    encodeWatchEvent('ERROR', { apiVersion: 'v1', kind: 'Status', metadata: {}, status: 'Failure', message: 'too old resource version', reason: 'Expired', code: 410 }, { group: '', version: 'v1', kind: 'Status' }),
  ];
  const stream = Buffer.concat(frames.map((f) => Buffer.from(f)));
  const events = [];
  for (let pos = 0; pos < stream.length; ) {
    const len = stream.readUInt32BE(pos);
    events.push(decodeWatchEvent(stream.subarray(pos, pos + 4 + len)));
    pos += 4 + len;
  }
  assert.deepEqual(events.map((e) => e.type), ['ADDED', 'DELETED', 'BOOKMARK', 'ERROR']);
  assert.deepEqual(events[0]!.object, decodeObject(encodeObject(POD, POD_GVK)).object);
  assert.equal((events[2]!.object.metadata as { resourceVersion: string }).resourceVersion, '12345');
  assert.deepEqual(events[3]!.gvk, { group: '', version: 'v1', kind: 'Status' });
  assert.equal(events[3]!.object.code, 410);
});

test('large objects (lengths past one varint byte at every level) frame correctly', () => {
  const big = { ...CONFIGMAP, data: Object.fromEntries(Array.from({ length: 2000 }, (_, i) => [`key-${i}`, 'v'.repeat(i % 300)])) };
  const gvk = { group: '', version: 'v1', kind: 'ConfigMap' };
  const frame = encodeWatchEvent('ADDED', big, gvk);
  assert.ok(frame.length > 300_000);
  const ev = decodeWatchEvent(frame);
  assert.deepEqual(ev.object.data, big.data);
});

test('a truncated frame is an error, not a silent partial event', () => {
  const frame = encodeWatchEvent('ADDED', POD, POD_GVK);
  assert.throws(() => decodeWatchEvent(frame.subarray(0, frame.length - 1)), /truncated/);
});
