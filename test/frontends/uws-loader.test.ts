/**
 * The uWS loader: the native binary or null, with one message saying why.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { createUwsLoader, defaultBinaryPath } from '../../src/frontends/uws-loader.ts';

describe('uWS loader', () => {
  it('returns null and reports once when the binary is missing', () => {
    const messages: string[] = [];
    const missing = path.join(tmpdir(), 'no-such-dir', 'uws_linux_x64_999.node');
    const load = createUwsLoader({ binaryPath: missing, log: (m) => messages.push(m) });
    assert.equal(load(), null);
    assert.equal(load(), null);
    assert.equal(load(), null);
    assert.equal(messages.length, 1);
    assert.match(messages[0]!, /^uWS unavailable: /);
    assert.match(messages[0]!, /no-such-dir/);
    assert.match(messages[0]!, new RegExp(`ABI ${process.versions.modules}`));
  });

  it('returns null for a file that is not a uWS binary', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'uws-loader-'));
    try {
      const fake = path.join(dir, 'fake.cjs');
      await writeFile(fake, 'module.exports = { App() {} };');
      const messages: string[] = [];
      assert.equal(createUwsLoader({ binaryPath: fake, log: (m) => messages.push(m) })(), null);
      assert.equal(messages.length, 1);
      assert.match(messages[0]!, /^uWS unavailable: .*not a uWebSockets\.js binary/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('looks for the binary of this platform and Node ABI, not the pure-JS fallback', () => {
    const expected = `uws_${process.platform}_${process.arch}_${process.versions.modules}.node`;
    assert.equal(path.basename(defaultBinaryPath()), expected);
    assert.equal(path.basename(path.dirname(defaultBinaryPath())), 'binaries');
  });

  it('loads the native binary on Node 20 (ABI 115)', { skip: process.versions.modules !== '115' ? 'not Node 20' : false }, () => {
    const messages: string[] = [];
    const uws = createUwsLoader({ log: (m) => messages.push(m) })();
    assert.ok(uws !== null, messages.join('\n'));
    assert.equal(typeof uws.SSLApp, 'function');
    assert.deepEqual(messages, []);
  });
});
