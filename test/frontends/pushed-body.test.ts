import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { StatusError } from '../../src/api/status.ts';
import { PushedBody } from '../../src/frontends/pushed-body.ts';

function flow(): { calls: string[]; pause(): void; resume(): void } {
  const calls: string[] = [];
  return { calls, pause: () => calls.push('pause'), resume: () => calls.push('resume') };
}

const bytes = (n: number): Uint8Array => new Uint8Array(n).fill(7);

async function rejectsWith(p: Promise<unknown>, code: number): Promise<void> {
  await assert.rejects(p, (err: unknown) => err instanceof StatusError && err.code === code);
}

describe('PushedBody', () => {
  it('keeps chunks pushed before anyone asked, and pauses past the pre-read allowance', async () => {
    const f = flow();
    const body = new PushedBody(undefined, f, 100);
    body.push(bytes(60), false);
    assert.deepEqual(f.calls, []);
    body.push(bytes(60), false);
    assert.deepEqual(f.calls, ['pause']);
    const read = body.read(1000);
    assert.deepEqual(f.calls, ['pause', 'resume']);
    body.push(bytes(30), true);
    assert.equal((await read).byteLength, 150);
  });

  it('refuses at once when the declared length is over the limit', async () => {
    await rejectsWith(new PushedBody(5000, flow()).read(1000), 413);
  });

  it('refuses once the pushed bytes pass the limit, then drops the rest', async () => {
    const f = flow();
    const body = new PushedBody(undefined, f, 10);
    body.push(bytes(20), false); // paused: nobody asked yet
    const read = body.read(50);
    body.push(bytes(40), false);
    await rejectsWith(read, 413);
    body.push(bytes(1000), true); // ignored
    assert.deepEqual(f.calls, ['pause', 'resume']);
  });

  it('fails a pending read when the client goes away, without touching the socket', async () => {
    const f = flow();
    const body = new PushedBody(100, f, 10);
    body.push(bytes(20), false);
    body.abort();
    await rejectsWith(body.read(1000), 400);
    assert.deepEqual(f.calls, ['pause']);
  });

  it('on discard, resumes a paused socket and drops what still comes; later reads fail', async () => {
    const f = flow();
    const body = new PushedBody(100_000, f, 10);
    body.push(bytes(20), false);
    body.discard();
    assert.deepEqual(f.calls, ['pause', 'resume']);
    body.push(bytes(50), false);
    assert.equal(body.received, 20, 'chunks after discard are not even counted');
    await rejectsWith(body.read(1000), 400);
  });

  it('leaves a body alone on discard once a read was asked for', async () => {
    const f = flow();
    const body = new PushedBody(30, f, 10);
    body.push(bytes(20), false);
    const read = body.read(1000);
    body.discard();
    body.push(bytes(10), true);
    assert.equal((await read).byteLength, 30);
    assert.deepEqual(f.calls, ['pause', 'resume']);
  });

  it('returns the same promise when read twice', async () => {
    const body = new PushedBody(3, flow());
    body.push(bytes(3), true);
    const a = body.read(10);
    assert.equal(body.read(99), a);
    assert.equal((await a).byteLength, 3);
  });
});
