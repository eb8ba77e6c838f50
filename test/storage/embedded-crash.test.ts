/**
 * kill -9 test: a child process writes to an embedded store at concurrency 64
 * and prints each write after it was acknowledged; we SIGKILL it mid-load,
 * reopen the store here and check that every acknowledged write survived,
 * consistently. Three runs with different kill points.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { EmbeddedStore } from '../../src/storage/embedded/index.ts';

const FIXTURE = fileURLToPath(new URL('./fixtures/crash-writer.ts', import.meta.url));
const valueHash = (v: Uint8Array): string => createHash('sha1').update(v).digest('hex').slice(0, 16);

interface Ack {
  readonly key: string;
  readonly revision: number;
  readonly hash: string;
}

/** Run the writer in `dir`, kill it with SIGKILL once it printed `killAfter` acks plus a random delay. */
async function runAndKill(dir: string, killAfter: number): Promise<Ack[]> {
  const child = spawn(process.execPath, ['--import', 'tsx', FIXTURE, dir], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  let acks = 0;
  let killScheduled = false;
  child.stderr.on('data', (d: Buffer) => (err += d.toString()));
  child.stdout.on('data', (d: Buffer) => {
    const s = d.toString();
    out += s;
    for (let i = s.indexOf('\n'); i >= 0; i = s.indexOf('\n', i + 1)) acks++;
    if (!killScheduled && acks > killAfter) { // the first line is `ready`
      killScheduled = true;
      setTimeout(() => child.kill('SIGKILL'), Math.floor(Math.random() * 20));
    }
  });
  const [code, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((resolve) =>
    child.on('close', (c, s) => resolve([c, s])),
  );
  assert.equal(signal, 'SIGKILL', `writer died on its own (code ${code}): ${err}`);
  // A line cut short by the kill was never fully printed: only complete lines count.
  const lines = out.slice(0, out.lastIndexOf('\n') + 1).split('\n').filter((l) => l.startsWith('ack '));
  return lines.map((l) => {
    const [, key, rev, hash] = l.split(' ');
    return { key: key!, revision: Number(rev), hash: hash! };
  });
}

async function verify(dir: string, acks: Ack[]): Promise<string> {
  const store = await EmbeddedStore.open({ dir });
  try {
    const rec = store.stats().recovery;
    const revisions = new Set(acks.map((a) => a.revision));
    assert.equal(revisions.size, acks.length, 'no revision was acknowledged twice');

    const perKey = new Map<string, Ack[]>();
    for (const a of acks) {
      const list = perKey.get(a.key) ?? [];
      if (list.length > 0) assert.ok(a.revision > list.at(-1)!.revision, `revisions of ${a.key} increase`);
      list.push(a);
      perKey.set(a.key, list);
    }

    const current = await store.currentRevision();
    const maxAcked = Math.max(...acks.map((a) => a.revision));
    assert.ok(current >= maxAcked, `current revision ${current} >= acknowledged ${maxAcked}`);

    const compacted = await store.compactedRevision();
    for (const a of acks) {
      if (a.revision >= compacted) {
        // History is still there: the write must be exactly as acknowledged.
        const { kv } = await store.get(a.key, a.revision);
        assert.ok(kv !== null, `${a.key} exists at ${a.revision}`);
        assert.equal(kv.modRevision, a.revision, `${a.key} was written at ${a.revision}`);
        assert.equal(valueHash(kv.value), a.hash, `${a.key} at ${a.revision} has the acknowledged value`);
      }
    }
    for (const [key, list] of perKey) {
      const last = list.at(-1)!;
      const { kv } = await store.get(key);
      assert.ok(kv !== null, `${key} exists`);
      assert.ok(kv.modRevision >= last.revision, `${key} is at ${kv.modRevision} >= acknowledged ${last.revision}`);
      if (kv.modRevision === last.revision) assert.equal(valueHash(kv.value), last.hash);
    }

    // No torn state: every key reads, and a full listing agrees with point reads.
    const all = await store.range('/crash/');
    assert.equal(all.count, all.kvs.length);
    for (const kv of all.kvs) {
      const got = await store.get(kv.key);
      assert.equal(got.kv?.modRevision, kv.modRevision);
    }
    assert.ok(all.count >= perKey.size);

    // New writes continue above everything acknowledged before the crash.
    const fresh = await store.create('/crash/after-restart', new Uint8Array([1]));
    assert.ok(fresh.modRevision > maxAcked);
    const some = all.kvs[0]!;
    const updated = await store.update(some.key, new Uint8Array([2]), some.modRevision);
    assert.ok(updated.modRevision > fresh.modRevision);
    return (
      `${acks.length} acks (max revision ${maxAcked}), recovered revision ${current}, compacted ${compacted}, ` +
      `snapshot ${rec.snapshotRevision}, replayed ${rec.recordsReplayed}, cut ${rec.truncatedBytes} bytes`
    );
  } finally {
    await store.close();
  }
}

describe('embedded store under kill -9', () => {
  for (const [run, base] of [300, 1200, 3000].entries()) {
    it(`keeps every acknowledged write (run ${run + 1}, kill after ~${base} acks)`, async (t) => {
      const dir = await mkdtemp(join(tmpdir(), 'orch-embedded-crash-'));
      try {
        const acks = await runAndKill(dir, base + Math.floor(Math.random() * base));
        assert.ok(acks.length >= base, `${acks.length} acknowledged writes before the kill`);
        t.diagnostic(await verify(dir, acks));
        // A second reopen sees the same state: recovery left the directory clean.
        const again = await EmbeddedStore.open({ dir });
        assert.equal(again.stats().recovery.truncatedBytes, 0);
        await again.close();
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    });
  }
});
