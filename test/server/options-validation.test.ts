import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { OptionsError, defaultOptions, parseArgs } from '../../src/server/options.ts';
import { startServer } from '../../src/server/server.ts';
import { createLogger } from '../../src/server/logging.ts';
import { admissionPluginProblems, admissionPluginEnabled } from '../../src/admission/plugin-names.ts';
import { scratchDirSync } from '../support/scratch-dir.ts';

const MAIN = path.resolve(import.meta.dirname, '../../src/main.ts');

function optionsError(argv: string[]): string {
  try {
    parseArgs(argv);
  } catch (err) {
    assert.ok(err instanceof OptionsError, `expected OptionsError, got ${String(err)}`);
    return err.message;
  }
  assert.fail(`parseArgs(${argv.join(' ')}) accepted`);
}

describe('admission plugin flags', () => {
  it('refuses unknown names, as the original words it', () => {
    assert.equal(optionsError(['--enable-admission-plugins=TotallyBogus']), 'enable-admission-plugins plugin "TotallyBogus" is unknown');
    assert.equal(optionsError(['--disable-admission-plugins=NamespaceLifecycle,Bogus']), 'disable-admission-plugins plugin "Bogus" is unknown');
  });

  it('refuses a name both enabled and disabled', () => {
    assert.match(optionsError(['--enable-admission-plugins=NamespaceLifecycle', '--disable-admission-plugins=NamespaceLifecycle']), /^\[NamespaceLifecycle\] in enable-admission-plugins and disable-admission-plugins overlapped$/);
  });

  it('refuses to enable a known plugin this server does not enforce, but lets it be disabled', () => {
    assert.match(optionsError(['--enable-admission-plugins=ImagePolicyWebhook']), /plugin "ImagePolicyWebhook" is not implemented by this server/);
    assert.deepEqual(admissionPluginProblems([], ['LimitRanger', 'PodSecurity', 'ResourceQuota']), []);
    assert.equal(parseArgs(['--enable-admission-plugins=NamespaceLifecycle']).enableAdmissionPlugins[0], 'NamespaceLifecycle');
    assert.deepEqual(admissionPluginProblems(['AlwaysAdmit'], []), [], 'AlwaysAdmit has nothing to enforce');
    assert.deepEqual(admissionPluginProblems(['AlwaysDeny'], []), [], 'AlwaysDeny is built');
  });

  it('knows the default-on set', () => {
    assert.equal(admissionPluginEnabled('NamespaceLifecycle', [], []), true);
    assert.equal(admissionPluginEnabled('NamespaceLifecycle', [], ['NamespaceLifecycle']), false);
    assert.equal(admissionPluginEnabled('AlwaysPullImages', [], []), false);
  });
});

describe('flag validation happens before any side effect', () => {
  it('an unknown --authorization-mode is an options error at parse time', () => {
    assert.equal(optionsError(['--authorization-mode=Bogus']), 'authorization-mode "Bogus" is not a valid mode');
    assert.match(optionsError(['--log-level=loud']), /--log-level/);
  });

  it('files named by flags must be readable, a cert needs its key, and timers must fit', () => {
    const missing = path.join(os.tmpdir(), 'orch-no-such-file.pem');
    assert.equal(optionsError([`--tls-cert-file=${missing}`, `--tls-private-key-file=${missing}`]).split('\n').length, 2);
    assert.match(optionsError([`--client-ca-file=${missing}`]), /^--client-ca-file: cannot read .*orch-no-such-file\.pem \(ENOENT\)$/);
    assert.match(optionsError([`--token-auth-file=${os.tmpdir()}`]), /is not a regular file/);
    assert.match(optionsError([`--tls-cert-file=${MAIN}`]), /must be given together/);
    assert.match(optionsError(['--request-timeout=0s']), /--request-timeout: must be greater than 0/);
    assert.match(optionsError(['--etcd-compaction-interval=1000h']), /--etcd-compaction-interval: must be at most 596h31m23\.647s/);
    assert.match(optionsError(['--watch-bookmark-interval=0']), /--watch-bookmark-interval: must be greater than 0/);
  });

  it('startServer refuses bad options without creating the data dir', async () => {
    const dir = path.join(scratchDirSync('orch-opts-'), 'data');
    const opts = { ...defaultOptions(), dataDir: dir, authorizationMode: ['Bogus'] };
    await assert.rejects(startServer(opts, createLogger({ level: 'silent' })), OptionsError);
    assert.equal(fs.existsSync(dir), false);
  });

  it('main exits 2 with a one-line error and no stack trace, and writes nothing', () => {
    const dir = path.join(scratchDirSync('orch-opts-'), 'data');
    for (const flag of ['--authorization-mode=Bogus', '--enable-admission-plugins=TotallyBogus']) {
      const r = spawnSync(process.execPath, ['--import', 'tsx', MAIN, flag, `--data-dir=${dir}`, '--secure-port=1', '--uws-port=0'], { encoding: 'utf8', timeout: 30_000 });
      assert.equal(r.status, 2, `${flag}: ${r.stderr}`);
      assert.doesNotMatch(r.stderr, /\n\s+at /, 'no stack trace');
      assert.match(r.stderr.split('\n')[0]!, /^error: (authorization-mode "Bogus" is not a valid mode|enable-admission-plugins plugin "TotallyBogus" is unknown)$/);
      assert.equal(fs.existsSync(dir), false, 'data dir must not be created');
    }
  });
});

describe('priority and fairness flags', () => {
  it('defaults to on; the two in-flight limits must add up to something positive while it is on', () => {
    assert.equal(parseArgs([]).enablePriorityAndFairness, true);
    assert.equal(parseArgs(['--enable-priority-and-fairness=false']).enablePriorityAndFairness, false);
    assert.match(optionsError(['--max-requests-inflight=0', '--max-mutating-requests-inflight=0']), /MaxRequestsInFlight=0 and MaxMutatingRequestsInFlight=0; they must add up to something positive/);
    // Off: 0 disables the limits, as before.
    assert.equal(parseArgs(['--enable-priority-and-fairness=false', '--max-requests-inflight=0', '--max-mutating-requests-inflight=0']).maxRequestsInflight, 0);
  });
});

describe('--list-stream-bytes', () => {
  it('defaults to 4 MiB, takes 0 (never stream) and refuses what is not a byte count', () => {
    assert.equal(defaultOptions().listStreamBytes, 4 * 1024 * 1024);
    assert.equal(parseArgs(['--list-stream-bytes=0']).listStreamBytes, 0);
    assert.equal(parseArgs(['--list-stream-bytes=1048576']).listStreamBytes, 1048576);
    assert.match(optionsError(['--list-stream-bytes=-1']), /list-stream-bytes/);
    assert.match(optionsError(['--list-stream-bytes=lots']), /list-stream-bytes/);
  });
});

describe('--uws-threads', () => {
  it('defaults to one fewer than the CPU count (at least 1), and refuses what is not a count of threads', () => {
    assert.equal(defaultOptions().uwsThreads, Math.max(1, os.availableParallelism() - 1));
    assert.equal(parseArgs(['--uws-threads=3']).uwsThreads, 3);
    assert.equal(optionsError(['--uws-threads=0']), 'invalid value 0 for --uws-threads: must be between 1 and 256');
    assert.equal(optionsError(['--uws-threads=257']), 'invalid value 257 for --uws-threads: must be between 1 and 256');
    assert.equal(optionsError(['--uws-threads=two']), 'invalid value "two" for --uws-threads: must be an integer');
    assert.match(optionsError([`--uws-threads=${'9'.repeat(400)}`]), /--uws-threads: must be between 1 and 256/);
  });
});
