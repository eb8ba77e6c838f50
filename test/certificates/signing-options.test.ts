/** The --cluster-signing-* and --leader-elect* flags: defaults, per-signer files, and the original's refusals. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { parseArgs, OptionsError } from '../../src/server/options.ts';
import { signerFilesFor } from '../../src/certificates/signing-options.ts';
import { names } from '../../src/naming/index.ts';

const file = new URL(import.meta.url).pathname;

describe('cluster signing flags', () => {
  it('default to one year, the data dir CA for every signer, leader election on (15s/10s/2s)', () => {
    const o = parseArgs([]);
    assert.equal(o.clusterSigning.durationMs, 365 * 24 * 3600_000);
    assert.equal(signerFilesFor(o.clusterSigning, names.signers.apiServerClient), undefined);
    assert.deepEqual(o.leaderElection, { enabled: true, leaseDurationMs: 15_000, renewDeadlineMs: 10_000, retryPeriodMs: 2_000 });
  });

  it('one pair for every signer, or a pair per signer under the original flag names', () => {
    const all = parseArgs([`--cluster-signing-cert-file=${file}`, `--cluster-signing-key-file=${file}`, '--cluster-signing-duration=720h']);
    assert.equal(all.clusterSigning.durationMs, 720 * 3600_000);
    for (const s of Object.values(names.signers)) assert.equal(signerFilesFor(all.clusterSigning, s)?.certFile, file);
    const one = parseArgs([`--cluster-signing-kubelet-serving-cert-file=${file}`, `--cluster-signing-kubelet-serving-key-file=${file}`]);
    assert.equal(signerFilesFor(one.clusterSigning, names.signers.nodeAgentServing)?.keyFile, file);
    assert.equal(signerFilesFor(one.clusterSigning, names.signers.apiServerClient), undefined, 'other signers keep the default CA');
  });

  it('refuse both kinds at once, half pairs, missing files, zero durations and inverted election timings', () => {
    const refuse = (args: string[], message: RegExp): void => assert.throws(() => parseArgs(args), (e: unknown) => e instanceof OptionsError && message.test(e.message));
    refuse([`--cluster-signing-cert-file=${file}`, `--cluster-signing-key-file=${file}`, `--cluster-signing-legacy-unknown-cert-file=${file}`, `--cluster-signing-legacy-unknown-key-file=${file}`], /cannot specify default and per controller certs at the same time/);
    refuse([`--cluster-signing-cert-file=${file}`], /cannot specify key without cert, or cert without key/);
    refuse([`--cluster-signing-kube-apiserver-client-key-file=${file}`], /--cluster-signing-kube-apiserver-client-cert-file and --cluster-signing-kube-apiserver-client-key-file go together/);
    refuse(['--cluster-signing-cert-file=/nonexistent/ca.crt', '--cluster-signing-key-file=/nonexistent/ca.key'], /--cluster-signing-cert-file: cannot read \/nonexistent\/ca\.crt/);
    refuse(['--cluster-signing-duration=0'], /--cluster-signing-duration: must be greater than 0/);
    refuse(['--leader-elect-lease-duration=5s', '--leader-elect-renew-deadline=5s'], /--leader-elect-lease-duration must be greater than --leader-elect-renew-deadline/);
    assert.equal(parseArgs(['--leader-elect=false', '--leader-elect-lease-duration=1s']).leaderElection.enabled, false, 'timings do not matter when off');
  });
});
