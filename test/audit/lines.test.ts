/**
 * Events as encoded lines (src/audit/lines.ts), the batch-mode path to a log
 * alone: the encoder's buffers (UTF-8 beyond the ASCII estimate, one buffer
 * per allocation so they can be transferred), the log backend taking lines
 * between events, the sink deciding when lines may skip the batch queue, and
 * the buffer bound counting lines not yet written.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import { MessageChannel } from 'node:worker_threads';
import path from 'node:path';
import { LineWriter, POOLED_CHUNK, buffersOf, decodeLines, encodeLines, pooledBuffers, recycle, transferList, type EncodedLines } from '../../src/audit/lines.ts';
import { RemoteAuditSink, serveRemoteAuditSink } from '../../src/audit/remote-sink.ts';
import { LogBackend } from '../../src/audit/log-backend.ts';
import { BatchingBackend, LocalAuditSink, batchesGoAtOnce, type AuditBackend, type BatchOptions } from '../../src/audit/sink.ts';
import { jsonEntry, type AuditEntry } from '../../src/audit/entry.ts';
import { auditAcceptsLines } from '../../src/audit/index.ts';
import { defaultAuditOptions } from '../../src/audit/config.ts';
import { scratchDir } from '../support/scratch-dir.ts';

const LOG_DEFAULTS: BatchOptions = { bufferSize: 10_000, maxSize: 1, maxWaitMs: 0, throttleEnable: false, throttleQps: 0, throttleBurst: 0 };

test('encodeLines: UTF-8 lines, each ending in a newline; a line past the ASCII estimate starts a buffer of its own', () => {
  // The second line is under a pooled buffer's size in UTF-16 units and over it in UTF-8 bytes.
  const lines = ['{"ua":"t\u00ebst-\u4e2d"}', `{"pad":"${'x'.repeat(POOLED_CHUNK - 40)}\u4e2d\u4e2d\u4e2d\u4e2d\u4e2d\u4e2d\u4e2d\u4e2d\u4e2d\u4e2d"}`, '{"b":"\u4e2d"}', '{}'];
  const enc = encodeLines(lines);
  assert.equal(enc.count, 4);
  assert.ok(enc.chunks.length >= 2, 'the long non-ASCII line did not fit the first buffer');
  const bytes = Buffer.concat(enc.chunks);
  assert.equal(bytes.toString('utf8'), lines.map((l) => `${l}\n`).join(''));
  assert.equal(bytes.length, lines.reduce((n, l) => n + Buffer.byteLength(l) + 1, 0));
  assert.deepEqual(decodeLines(enc), lines);
  // Each buffer is its own allocation (not Buffer's shared pool): transferable without taking other data along.
  const buffers = transferList(enc);
  assert.equal(new Set(buffers).size, buffers.length);
  const { port1, port2 } = new MessageChannel();
  port1.postMessage(enc, buffers);
  assert.ok(enc.chunks.every((c) => c.byteLength === 0), 'the chunks were moved, not copied');
  port1.close();
  port2.close();
  assert.deepEqual(encodeLines([]), { chunks: [], count: 0 });
});

test('log backend: lines and events go to the file in the order given; rotation counts the bytes', async () => {
  const dir = await scratchDir('orch-audit-lines-');
  const file = path.join(dir, 'audit.log');
  const log = await LogBackend.open({ path: file, format: 'json', maxSizeMB: 1, maxBackups: 0, maxAgeDays: 0 });
  assert.equal(log.acceptsLines, true);
  const w1 = log.write([jsonEntry('{"n":1}')]);
  const w2 = log.writeLines(encodeLines(['{"n":2}', '{"n":3,"s":"\u00e9"}']));
  const w3 = log.write([jsonEntry('{"n":4}')]);
  await Promise.all([w1, w2, w3]);
  assert.equal(await fs.readFile(file, 'utf8'), '{"n":1}\n{"n":2}\n{"n":3,"s":"\u00e9"}\n{"n":4}\n');
  // Just over 1 MiB in two sets: the second one rotates the file first.
  const big = `{"pad":"${'y'.repeat(600 * 1024)}"}`;
  await log.writeLines(encodeLines([big]));
  await log.writeLines(encodeLines([big]));
  await log.close();
  const files = (await fs.readdir(dir)).sort();
  assert.equal(files.length, 2, files.join(', '));
  assert.equal((await fs.readFile(file, 'utf8')).length, big.length + 1);

  const legacy = await LogBackend.open({ path: path.join(dir, 'legacy.log'), format: 'legacy', maxSizeMB: 0, maxBackups: 0, maxAgeDays: 0 });
  assert.equal(legacy.acceptsLines, false);
  await assert.rejects(legacy.writeLines(encodeLines(['{}'])), /legacy/);
  await legacy.close();
});

test('the sink takes lines only when every backend is the log in JSON with batches sent at once', async () => {
  const dir = await scratchDir('orch-audit-lines-');
  const json = await LogBackend.open({ path: path.join(dir, 'a.log'), format: 'json', maxSizeMB: 0, maxBackups: 0, maxAgeDays: 0 });
  const report = (): void => undefined;
  assert.equal(new LocalAuditSink([{ backend: json, mode: 'batch', batch: LOG_DEFAULTS }], report).acceptsLines, true);
  assert.equal(new LocalAuditSink([{ backend: json, mode: 'blocking', batch: LOG_DEFAULTS }], report).acceptsLines, false);
  assert.equal(new LocalAuditSink([{ backend: json, mode: 'batch', batch: { ...LOG_DEFAULTS, maxSize: 100, maxWaitMs: 10_000 } }], report).acceptsLines, false);
  assert.equal(new LocalAuditSink([{ backend: json, mode: 'batch', batch: { ...LOG_DEFAULTS, throttleEnable: true, throttleQps: 10, throttleBurst: 15 } }], report).acceptsLines, false);
  assert.equal(new LocalAuditSink([{ backend: json, mode: 'batch', batch: LOG_DEFAULTS, truncate: { enabled: true, maxBatchSize: 1024 * 1024, maxEventSize: 100 * 1024 } }], report).acceptsLines, false);
  await json.close();
  assert.equal(batchesGoAtOnce(LOG_DEFAULTS), true);
  assert.equal(batchesGoAtOnce({ ...LOG_DEFAULTS, maxSize: 400, maxWaitMs: 30_000 }), false);

  // The front-end threads decide from the options: the same answer for the same configuration.
  const opts = defaultAuditOptions();
  opts.log.path = path.join(dir, 'b.log');
  assert.equal(auditAcceptsLines(opts), false, 'the log\'s default mode is blocking');
  opts.log.mode = 'batch';
  assert.equal(auditAcceptsLines(opts), true);
  opts.log.format = 'legacy';
  assert.equal(auditAcceptsLines(opts), false);
  opts.log.format = 'json';
  opts.webhook.configFile = path.join(dir, 'hook.kubeconfig');
  assert.equal(auditAcceptsLines(opts), false);
});

test('a sink that does not take lines decodes them into events (a sender that read the options otherwise)', async () => {
  const got: string[] = [];
  const backend: AuditBackend = {
    name: 'recording',
    write: async (events: readonly AuditEntry[]) => void got.push(...events.map((e) => e.json)),
    close: async () => undefined,
  };
  const sink = new LocalAuditSink([{ backend, mode: 'blocking', batch: LOG_DEFAULTS }], () => undefined);
  assert.equal(sink.acceptsLines, false);
  sink.processLines(encodeLines(['{"a":1}', '{"b":"\u4e2d"}']));
  for (let i = 0; i < 50 && got.length < 2; i++) await new Promise((r) => setImmediate(r));
  assert.deepEqual(got, ['{"a":1}', '{"b":"\u4e2d"}']);
});

test('the buffer bound counts lines handed over and not yet written; a set that does not fit is dropped whole', async () => {
  const releases: (() => void)[] = [];
  const written: EncodedLines[] = [];
  const slow: AuditBackend = {
    name: 'slow',
    acceptsLines: true,
    write: async () => undefined,
    writeLines: (lines) => {
      written.push(lines);
      return new Promise<void>((r) => releases.push(r));
    },
    close: async () => undefined,
  };
  const lost: number[] = [];
  const reports: string[] = [];
  const b = new BatchingBackend(slow, { ...LOG_DEFAULTS, bufferSize: 5 }, (err) => reports.push(String(err)), (_plugin, n) => lost.push(n));
  assert.equal(b.acceptsLines, true);
  b.addLines(encodeLines(['1', '2', '3']));
  b.addLines(encodeLines(['4', '5', '6'])); // 3 + 3 > 5: dropped whole
  assert.equal(b.dropped, 3);
  assert.deepEqual(lost, [3]);
  assert.equal(reports.length, 1);
  b.addLines(encodeLines(['7', '8']));
  assert.equal(written.length, 2);
  releases[1]!();
  await new Promise((r) => setImmediate(r));
  // 3 lines still in flight: 5 more do not fit.
  b.addLines(encodeLines(['9', '10', '11', '12', '13']));
  assert.equal(b.dropped, 8);
  releases[0]!();
  await new Promise((r) => setImmediate(r));
  // Both writes done: room again.
  b.addLines(encodeLines(['9', '10', '11', '12', '13']));
  assert.equal(b.dropped, 8);
  assert.equal(written.length, 3);
});

test('written line buffers are used again: on the thread that wrote them, and sent back to a front-end thread', async () => {
  // Drain the pool, so what follows counts from zero.
  while (pooledBuffers() > 0) new LineWriter(POOLED_CHUNK);
  const first = new LineWriter(1000);
  first.line('{"a":1}');
  const taken = first.take();
  const [buffer] = buffersOf(taken);
  assert.equal(buffer!.byteLength, POOLED_CHUNK);
  recycle(buffersOf(taken));
  assert.equal(pooledBuffers(), 1);
  const second = new LineWriter(1000);
  second.line('{"b":2}');
  assert.equal(second.take().chunks[0]!.buffer, buffer, 'the same memory again');
  assert.equal(pooledBuffers(), 0);
  // Larger than a pooled buffer: made for the purpose, never pooled.
  const big = encodeLines([`{"pad":"${'z'.repeat(POOLED_CHUNK)}"}`]);
  recycle(buffersOf(big));
  assert.equal(pooledBuffers(), 0);

  // Across a port, as from a front-end worker: the owning thread writes, then gives the buffers back.
  const dir = await scratchDir('orch-audit-lines-');
  const file = path.join(dir, 'audit.log');
  const log = await LogBackend.open({ path: file, format: 'json', maxSizeMB: 0, maxBackups: 0, maxAgeDays: 0 });
  const local = new LocalAuditSink([{ backend: log, mode: 'batch', batch: LOG_DEFAULTS }], () => undefined);
  const { port1, port2 } = new MessageChannel();
  serveRemoteAuditSink(port1, local);
  const remote = new RemoteAuditSink(port2, false, true);
  const w = new LineWriter(1000);
  w.line('{"from":"worker"}');
  const sent = w.take();
  remote.processLines(sent);
  assert.equal(sent.chunks[0]!.byteLength, 0, 'transferred');
  for (let i = 0; i < 100 && pooledBuffers() === 0; i++) await new Promise((r) => setTimeout(r, 10));
  assert.equal(pooledBuffers(), 1, 'the buffer came back once written');
  assert.equal(await fs.readFile(file, 'utf8'), '{"from":"worker"}\n');
  await local.close();
  port1.close();
  port2.close();
});
