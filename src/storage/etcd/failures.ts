/**
 * Classifies errors from the etcd3 client (gRPC status errors and etcd server
 * errors) into what the store must do about them.
 *
 * Classification is by message text on purpose: the etcd3 client rebuilds
 * gRPC errors into its own classes but drops the status code, and watch
 * streams emit raw gRPC errors; the message ("14 UNAVAILABLE: ...",
 * "etcdserver: mvcc: ...") is the one thing both keep.
 */
import { isRecoverableError } from 'etcd3';

export type FailureKind =
  /** "mvcc: required revision has been compacted" */
  | 'compacted'
  /** "mvcc: required revision is a future revision" */
  | 'future'
  /** The cluster could not be reached or did not answer in time. */
  | 'unavailable'
  /** Anything else (a bug, a rejected request): passed through unchanged. */
  | 'other';

const UNAVAILABLE_STATUS = /^\d+ (UNAVAILABLE|DEADLINE_EXCEEDED|CANCELLED|ABORTED|RESOURCE_EXHAUSTED|INTERNAL|UNKNOWN)\b/;

// etcd server errors that mean "try again later" rather than "bad request".
const UNAVAILABLE_ETCD = [
  'etcdserver: request timed out',
  'etcdserver: leader changed',
  'etcdserver: no leader',
  'etcdserver: too many requests',
  'etcdserver: server stopped',
  'etcdserver: not capable',
  'etcdserver: request cancelled',
  'etcdserver: unhealthy cluster',
];

export function classify(err: unknown): FailureKind {
  const message = err instanceof Error ? err.message : String(err);
  if (message.includes('required revision has been compacted')) return 'compacted';
  if (message.includes('required revision is a future revision')) return 'future';
  if (err instanceof Error && isRecoverableError(err)) return 'unavailable';
  if (UNAVAILABLE_STATUS.test(message)) return 'unavailable';
  if (UNAVAILABLE_ETCD.some((m) => message.includes(m))) return 'unavailable';
  if (err instanceof Error && (err.name === 'BrokenCircuitError' || err.name === 'ClientClosedError')) {
    return 'unavailable';
  }
  return 'other';
}

/**
 * True when the request certainly never left this process (no connection to
 * send it on), so even a write can be retried without risk of applying twice.
 * This is the test clientv3 applies before retrying a mutation.
 */
export function neverSent(err: unknown): boolean {
  const message = err instanceof Error ? err.message : String(err);
  return message.includes('No connection established');
}

export function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
