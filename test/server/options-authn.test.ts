/**
 * The authentication flags of this task: bootstrap tokens and the
 * authenticating proxy, their defaults, list syntax, and start-up checks.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { OptionsError, defaultOptions, parseArgs } from '../../src/server/options.ts';
import { scratchDirSync } from '../support/scratch-dir.ts';

describe('authentication flags', () => {
  it('defaults: bootstrap tokens off, no authenticating proxy', () => {
    const o = defaultOptions();
    assert.equal(o.enableBootstrapTokenAuth, false);
    assert.equal(o.requestheaderClientCaFile, undefined);
    assert.deepEqual([o.requestheaderAllowedNames, o.requestheaderUsernameHeaders, o.requestheaderGroupHeaders, o.requestheaderExtraHeadersPrefix], [[], [], [], []]);
  });

  it('--enable-bootstrap-token-auth is a boolean flag', () => {
    assert.equal(parseArgs(['--enable-bootstrap-token-auth']).enableBootstrapTokenAuth, true);
    assert.equal(parseArgs(['--enable-bootstrap-token-auth=false']).enableBootstrapTokenAuth, false);
    assert.throws(() => parseArgs(['--enable-bootstrap-token-auth=maybe']), OptionsError);
  });

  it('--requestheader-* lists take commas and repeat (appending, as a string slice flag)', () => {
    const dir = scratchDirSync('orch-opts-');
    try {
      const ca = path.join(dir, 'ca.crt');
      fs.writeFileSync(ca, 'pem');
      const o = parseArgs([
        `--requestheader-client-ca-file=${ca}`,
        '--requestheader-username-headers=X-Remote-User,X-User',
        '--requestheader-username-headers=X-Third',
        '--requestheader-group-headers=X-Remote-Group',
        '--requestheader-extra-headers-prefix=X-Remote-Extra-',
        '--requestheader-allowed-names=front-proxy,aggregator',
      ]);
      assert.equal(o.requestheaderClientCaFile, ca);
      assert.deepEqual(o.requestheaderUsernameHeaders, ['X-Remote-User', 'X-User', 'X-Third']);
      assert.deepEqual(o.requestheaderGroupHeaders, ['X-Remote-Group']);
      assert.deepEqual(o.requestheaderExtraHeadersPrefix, ['X-Remote-Extra-']);
      assert.deepEqual(o.requestheaderAllowedNames, ['front-proxy', 'aggregator']);
      // A CA without username headers cannot authenticate anyone: refused at start.
      assert.throws(() => parseArgs([`--requestheader-client-ca-file=${ca}`]), /--requestheader-username-headers must name at least one header/);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('an unreadable --requestheader-client-ca-file stops the start', () => {
    assert.throws(
      () => parseArgs(['--requestheader-client-ca-file=/nonexistent/ca.crt', '--requestheader-username-headers=X-Remote-User']),
      /--requestheader-client-ca-file: cannot read \/nonexistent\/ca.crt/,
    );
  });
});
