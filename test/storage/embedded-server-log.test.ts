/**
 * The embedded store's recovery reaches the server: what it cut is in the
 * server log at start, damage it must not cut stops the start with a message
 * that names the file, and --embedded-wal-repair starts anyway and logs what
 * it dropped.
 */
import { describe, it, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readdir, readFile, rm, stat, truncate, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EmbeddedStore } from '../../src/storage/embedded/index.ts';
import { parseArgs } from '../../src/server/options.ts';
import { createLogger } from '../../src/server/logging.ts';
import { startServer } from '../../src/server/server.ts';
import { freePort } from '../support/test-server.ts';

const roots: string[] = [];
after(async () => {
  for (const root of roots) await rm(root, { recursive: true, force: true });
});

/** A data dir whose store has `count` records in one segment; returns the segment path and its frame offsets. */
async function dataDirWithStore(count: number): Promise<{ dataDir: string; segment: string; offsets: number[] }> {
  const dataDir = await mkdtemp(join(tmpdir(), 'orch-wal-log-'));
  roots.push(dataDir);
  const storeDir = join(dataDir, 'store');
  const store = await EmbeddedStore.open({ dir: storeDir });
  for (let i = 0; i < count; i++) await store.create(`/test/${i}`, new TextEncoder().encode(`{"n":${i}}`));
  await store.close();
  const segment = join(storeDir, (await readdir(storeDir)).find((n) => n.startsWith('wal-'))!);
  const bytes = await readFile(segment);
  const offsets: number[] = [];
  for (let off = 0; off < bytes.length; off += 8 + bytes.readUInt32LE(off)) offsets.push(off);
  return { dataDir, segment, offsets };
}

async function start(dataDir: string, extra: string[] = []) {
  const lines: string[] = [];
  const logger = createLogger({ level: 'info', destination: { write: (s: string) => void lines.push(s) } });
  const options = parseArgs([
    `--secure-port=${await freePort()}`,
    '--uws-port=0',
    '--bind-address=127.0.0.1',
    `--data-dir=${dataDir}`,
    '--shards=1',
    ...extra,
  ]);
  const server = await startServer(options, logger);
  const logged = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
  return { server, logged };
}

describe('embedded store recovery at server start', () => {
  it('--embedded-wal-repair is off unless given', () => {
    assert.equal(parseArgs([]).embeddedWalRepair, false);
    assert.equal(parseArgs(['--embedded-wal-repair']).embeddedWalRepair, true);
    assert.equal(parseArgs(['--embedded-wal-repair=false']).embeddedWalRepair, false);
  });

  it('logs a torn write it cut: file, offset, bytes cut, last revision kept', async () => {
    const { dataDir, segment, offsets } = await dataDirWithStore(5);
    const size = (await stat(segment)).size;
    await truncate(segment, size - 3);
    const { server, logged } = await start(dataDir);
    await server.close();
    const entry = logged.find((l) => typeof l['msg'] === 'string' && (l['msg'] as string).includes('torn write'));
    assert.ok(entry, `a log line for the cut: ${JSON.stringify(logged.map((l) => l['msg']))}`);
    assert.equal(entry['level'], 40);
    assert.equal(entry['file'], segment);
    assert.equal(entry['offset'], offsets.at(-1));
    assert.equal(entry['bytesCut'], size - 3 - offsets.at(-1)!);
    assert.equal(entry['lastRevisionKept'], 4);
  });

  it('refuses to start on a damaged record, and starts with --embedded-wal-repair, logging what it dropped', async () => {
    const { dataDir, segment, offsets } = await dataDirWithStore(8);
    const bytes = await readFile(segment);
    bytes[offsets[3]! + 12]! ^= 0x04;
    await writeFile(segment, bytes);
    await assert.rejects(start(dataDir), (err: Error) => {
      assert.match(err.message, new RegExp(`${segment.replaceAll('.', '\\.')} is damaged at offset ${offsets[3]}`));
      assert.match(err.message, /--embedded-wal-repair/);
      return true;
    });
    const { server, logged } = await start(dataDir, ['--embedded-wal-repair']);
    await server.close();
    const entry = logged.find((l) => l['level'] === 50 && String(l['msg']).includes('repair'));
    assert.ok(entry, JSON.stringify(logged.map((l) => l['msg'])));
    assert.equal(entry['file'], segment);
    assert.equal(entry['offset'], offsets[3]);
    assert.equal(entry['lastRevisionKept'], 3);
    assert.equal(entry['intactRecordsDropped'], 4);
  });
});
