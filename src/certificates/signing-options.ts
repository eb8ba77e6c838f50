/**
 * The controller manager's signing flags, with its names and rules:
 * `--cluster-signing-cert-file` / `--cluster-signing-key-file` for every
 * built-in signer, or per signer `--cluster-signing-{kubelet-serving,
 * kubelet-client, kube-apiserver-client, legacy-unknown}-{cert,key}-file`
 * (not both kinds at once, and each pair complete),
 * `--cluster-signing-duration` (default 8760h0m0s). Neither given: the data
 * dir's cluster CA signs. And the leader election flags
 * (`--leader-elect`, `--leader-elect-lease-duration` 15s,
 * `--leader-elect-renew-deadline` 10s, `--leader-elect-retry-period` 2s).
 */
import { names } from '../naming/index.ts';
import { DEFAULT_LEADER_ELECTION, type LeaderElectionTimings } from '../controllers/leader-election.ts';

export interface SignerFiles {
  certFile: string | undefined;
  keyFile: string | undefined;
}

export interface ClusterSigningOptions {
  /** --cluster-signing-cert-file / -key-file. */
  all: SignerFiles;
  /** Per signer, by the original's flag segment. */
  perSigner: Record<SignerFlag, SignerFiles>;
  durationMs: number;
}

export interface LeaderElectionOptions extends LeaderElectionTimings {
  enabled: boolean;
}

/** The original's flag segment for each built-in signer. */
export const SIGNER_FLAGS = {
  'kubelet-serving': names.signers.nodeAgentServing,
  'kubelet-client': names.signers.apiServerClientNodeAgent,
  'kube-apiserver-client': names.signers.apiServerClient,
  'legacy-unknown': names.signers.legacyUnknown,
} as const;
export type SignerFlag = keyof typeof SIGNER_FLAGS;

export const DEFAULT_CLUSTER_SIGNING_DURATION_MS = 365 * 24 * 3600_000;

export function defaultClusterSigningOptions(): ClusterSigningOptions {
  const none = (): SignerFiles => ({ certFile: undefined, keyFile: undefined });
  return {
    all: none(),
    perSigner: { 'kubelet-serving': none(), 'kubelet-client': none(), 'kube-apiserver-client': none(), 'legacy-unknown': none() },
    durationMs: DEFAULT_CLUSTER_SIGNING_DURATION_MS,
  };
}

export function defaultLeaderElectionOptions(): LeaderElectionOptions {
  return { enabled: true, ...DEFAULT_LEADER_ELECTION };
}

/** The flags' problems, as the original's CSRSigningControllerOptions.Validate words them. */
export function clusterSigningProblems(o: ClusterSigningOptions, le: LeaderElectionOptions): string[] {
  const problems: string[] = [];
  const half = (f: SignerFiles): boolean => (f.certFile === undefined) !== (f.keyFile === undefined);
  const some = (Object.keys(o.perSigner) as SignerFlag[]).filter((k) => o.perSigner[k].certFile !== undefined || o.perSigner[k].keyFile !== undefined);
  if ((o.all.certFile !== undefined || o.all.keyFile !== undefined) && some.length > 0) {
    problems.push('cannot specify default and per controller certs at the same time');
  }
  if (half(o.all)) problems.push('cannot specify key without cert, or cert without key: --cluster-signing-cert-file and --cluster-signing-key-file go together');
  for (const k of some) {
    if (half(o.perSigner[k])) problems.push(`cannot specify key without cert, or cert without key: --cluster-signing-${k}-cert-file and --cluster-signing-${k}-key-file go together`);
  }
  if (!(o.durationMs > 0)) problems.push('invalid value for --cluster-signing-duration: must be greater than 0');
  if (le.enabled && !(le.leaseDurationMs > le.renewDeadlineMs && le.renewDeadlineMs > le.retryPeriodMs && le.retryPeriodMs > 0)) {
    problems.push('--leader-elect-lease-duration must be greater than --leader-elect-renew-deadline, which must be greater than --leader-elect-retry-period (> 0)');
  }
  return problems;
}

/** Which files sign for `signerName`; undefined: the default CA. */
export function signerFilesFor(o: ClusterSigningOptions, signerName: string): SignerFiles | undefined {
  if (o.all.certFile !== undefined) return o.all;
  const flag = (Object.keys(SIGNER_FLAGS) as SignerFlag[]).find((k) => SIGNER_FLAGS[k] === signerName);
  const f = flag === undefined ? undefined : o.perSigner[flag];
  return f?.certFile !== undefined ? f : undefined;
}
