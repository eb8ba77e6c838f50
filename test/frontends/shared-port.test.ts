import { describe, it, after } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import { createRequire } from 'node:module';
import { sharedListenOptions, sharedPortMethod } from '../../src/frontends/shared-port.ts';

interface Addon {
  listen(host: string, port: number, backlog: number, exclusive: boolean): number;
}

/** The addon, built by `npm install` (src/frontends/native/reuseport); .ci/run requires it (ORCH_TEST_REUSEPORT_ADDON=required). */
function loadAddon(): Addon | null {
  try {
    return createRequire(import.meta.url)('orch-reuseport') as Addon;
  } catch (err) {
    if (process.env['ORCH_TEST_REUSEPORT_ADDON'] === 'required') throw err;
    return null;
  }
}
const addon = loadAddon();

/** A server answering each connection with `name` and closing it. */
function namedServer(name: string, listen: net.ListenOptions | { fd: number }): Promise<net.Server> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer((s) => s.end(name));
    srv.once('error', reject);
    srv.listen(listen, () => resolve(srv));
  });
}

function whoAnswers(port: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const c = net.connect(port, '127.0.0.1');
    let got = '';
    c.on('data', (d: Buffer) => (got += d.toString()));
    c.on('end', () => resolve(got));
    c.on('error', reject);
  });
}

function close(srv: net.Server): Promise<void> {
  return new Promise((resolve) => srv.close(() => resolve()));
}

function codeOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (err) {
    return (err as NodeJS.ErrnoException).code;
  }
  return undefined;
}

describe('listening sockets shared between threads (src/frontends/native/reuseport, shared-port.ts)', { skip: addon === null ? 'the orch-reuseport addon is not built (npm install builds it; needs a C compiler)' : false }, () => {
  const servers: net.Server[] = [];
  after(async () => {
    for (const s of servers) if (s.listening) await close(s);
  });

  it('gives sockets on one port, each its own server, and the kernel spreads connections over them', async () => {
    const a = addon!;
    const first = await namedServer('first', { fd: a.listen('127.0.0.1', 0, 511, true) });
    servers.push(first);
    const port = (first.address() as net.AddressInfo).port;
    assert.ok(port > 0);
    const second = await namedServer('second', { fd: a.listen('127.0.0.1', port, 511, false) });
    servers.push(second);
    const seen = new Map<string, number>();
    for (let i = 0; i < 60; i++) {
      const who = await whoAnswers(port);
      seen.set(who, (seen.get(who) ?? 0) + 1);
    }
    assert.deepEqual([...seen.keys()].sort(), ['first', 'second'], `both answered: ${JSON.stringify([...seen])}`);
    // Each server closes its own descriptor: the other goes on serving the port.
    await close(second);
    for (let i = 0; i < 5; i++) assert.equal(await whoAnswers(port), 'first');
    await close(first);
    await assert.rejects(whoAnswers(port), /ECONNREFUSED/);
  });

  it('refuses a port someone else listens on, with or without SO_REUSEPORT, when it opens the port', async () => {
    const a = addon!;
    const plain = await namedServer('plain', { host: '127.0.0.1', port: 0 });
    servers.push(plain);
    const plainPort = (plain.address() as net.AddressInfo).port;
    assert.equal(codeOf(() => a.listen('127.0.0.1', plainPort, 511, true)), 'EADDRINUSE');
    assert.equal(codeOf(() => a.listen('127.0.0.1', plainPort, 511, false)), 'EADDRINUSE', 'a socket without SO_REUSEPORT shares with nobody');

    const shared = await namedServer('shared', { fd: a.listen('127.0.0.1', 0, 511, true) });
    servers.push(shared);
    const sharedPort = (shared.address() as net.AddressInfo).port;
    // Another server opening the same port must fail, not silently split its connections with this one.
    assert.equal(codeOf(() => a.listen('127.0.0.1', sharedPort, 511, true)), 'EADDRINUSE');
    if (sharedPortMethod() === 'addon') assert.equal(codeOf(() => sharedListenOptions('127.0.0.1', sharedPort, true)), 'EADDRINUSE');
    const joined = await namedServer('joined', { fd: a.listen('127.0.0.1', sharedPort, 511, false) });
    servers.push(joined);
    await close(joined);
    await close(shared);
    await close(plain);
  });

  it('says what is wrong with its arguments instead of crashing', () => {
    const a = addon!;
    const bad = a as unknown as { listen(...args: unknown[]): number };
    assert.throws(() => bad.listen('127.0.0.1', 70_000, 511, true), TypeError);
    assert.throws(() => bad.listen('127.0.0.1', 0, 0, true), TypeError);
    assert.throws(() => bad.listen('127.0.0.1', 0, 511), TypeError);
    assert.throws(() => bad.listen(42, 0, 511, true), TypeError);
    assert.throws(() => bad.listen('x'.repeat(300), 0, 511, true), TypeError);
    assert.equal(codeOf(() => a.listen('not-an-address.invalid', 0, 511, true)), 'ENOTFOUND');
  });
});
