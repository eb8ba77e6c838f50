/**
 * One HTTPS endpoint a side-by-side benchmark drives: ours (a port of our
 * server) or the original's secure port, with what is needed to reach it and
 * to read the CPU behind it from /proc.
 */
export interface Target {
  /** Short key for tables, e.g. `ours-uws-h1`. */
  readonly key: string;
  /** Human label, e.g. `ours, uWS listener (HTTP/1.1)`. */
  readonly label: string;
  readonly port: number;
  /** Force HTTP/1.1 in h2load (else ALPN picks HTTP/2). */
  readonly h1: boolean;
  readonly ca: Buffer;
  readonly token: string;
  /** CPU seconds of every process serving this target (all threads). */
  cpuSeconds(): number;
  /** The same CPU seconds per process (e.g. kube-apiserver and etcd), when more than one serves the target. */
  cpuParts?(): Record<string, number>;
}
