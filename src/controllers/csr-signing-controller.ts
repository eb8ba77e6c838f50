/**
 * CSRSigningController: the original's csrsigning controllers (one per
 * built-in signer, pkg/controller/certificates/signer) in one loop. For each
 * CertificateSigningRequest of a built-in signer that is Approved, not
 * Failed and has no certificate yet, the signer's rules
 * (src/certificates/signers) decide: a refusal is recorded as a Failed
 * condition (reason SignerValidationFailure, the rule's message); otherwise
 * the signer's CA signs for min(--cluster-signing-duration,
 * spec.expirationSeconds) and the certificate is written through the status
 * subresource. Requests of other signers are left to their signers.
 *
 * It runs only where this server holds the controller manager lease
 * (leader-election.ts), so that servers sharing a store sign once; the
 * status write is a compare-and-swap, and validation refuses to replace a
 * certificate, so a race could never issue two anyway.
 */
import type { GenericStore } from '../registry/generic-store.ts';
import type { ResourceRegistry } from '../registry/registry.ts';
import type { ResourceType } from '../registry/resource-type.ts';
import type { KObject } from '../registry/object.ts';
import type { UserInfo } from '../server/context.ts';
import { StatusError } from '../api/status.ts';
import { apiGroup, names } from '../naming/index.ts';
import { parseRequest } from '../certificates/csr-request.ts';
import { builtInSigner } from '../certificates/signers/index.ts';
import { MIN_SIGNING_DURATION_MS, SigningAuthority } from '../certificates/signing-authority.ts';
import { signerFilesFor, type ClusterSigningOptions } from '../certificates/signing-options.ts';

export const CSR_SIGNING_USER: UserInfo = {
  name: `system:serviceaccount:${names.systemNamespace}:certificate-controller`,
  groups: ['system:serviceaccounts', `system:serviceaccounts:${names.systemNamespace}`, 'system:authenticated'],
};

export interface CsrSigningLogger {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
}

export interface CsrSigningConfig {
  store: GenericStore;
  registry: ResourceRegistry;
  signing: ClusterSigningOptions;
  /** The data dir's cluster CA: signs for every signer without files of its own. */
  defaultCa: { certFile: string; keyFile: string };
  log: CsrSigningLogger;
}

interface Condition {
  type?: string;
  status?: string;
}

function conditions(csr: KObject): Condition[] {
  const status = csr['status'] as { conditions?: unknown } | undefined;
  return Array.isArray(status?.conditions) ? (status.conditions as Condition[]) : [];
}

const hasTrue = (csr: KObject, type: string): boolean => conditions(csr).some((c) => c.type === type && c.status === 'True');

/** What the original's certificate controller acts on: approved, not failed, not yet issued. */
export function needsSigning(csr: KObject): boolean {
  const spec = (csr['spec'] ?? {}) as { signerName?: unknown };
  const status = (csr['status'] ?? {}) as { certificate?: unknown };
  if (typeof status.certificate === 'string' && status.certificate !== '') return false;
  if (typeof spec.signerName !== 'string' || builtInSigner(spec.signerName) === undefined) return false;
  return hasTrue(csr, 'Approved') && !hasTrue(csr, 'Denied') && !hasTrue(csr, 'Failed');
}

/** signer.duration: the cluster signing duration, or the requested one when shorter (never under 10 minutes). */
export function signingDurationMs(clusterMs: number, expirationSeconds: unknown): number {
  if (typeof expirationSeconds !== 'number') return clusterMs;
  const requested = expirationSeconds * 1000;
  if (requested > clusterMs) return clusterMs;
  return Math.max(requested, MIN_SIGNING_DURATION_MS);
}

export class CsrSigningController {
  readonly name = 'csrsigning';
  readonly #cfg: CsrSigningConfig;
  readonly #csrs: ResourceType;
  readonly #authorities = new Map<string, Promise<SigningAuthority>>();
  readonly #queue = new Set<string>();
  readonly #retries = new Map<string, { timer: NodeJS.Timeout; delayMs: number }>();
  #watch: { close(): void } | null = null;
  #restartTimer: NodeJS.Timeout | undefined;
  #buffer = '';
  #draining = false;
  #running = false;
  /** Certificates this controller issued (tests and logs: a second server must issue none). */
  signedCount = 0;

  constructor(cfg: CsrSigningConfig) {
    const csrs = cfg.registry.lookup(apiGroup('certificates'), 'v1', 'certificatesigningrequests');
    if (csrs === undefined) throw new Error('certificatesigningrequests are not served');
    this.#cfg = cfg;
    this.#csrs = csrs;
  }

  start(): void {
    if (this.#running) return;
    this.#running = true;
    this.#openWatch();
  }

  stop(): void {
    this.#running = false;
    this.#watch?.close();
    this.#watch = null;
    clearTimeout(this.#restartTimer);
    for (const r of this.#retries.values()) clearTimeout(r.timer);
    this.#retries.clear();
    this.#queue.clear();
  }

  #openWatch(): void {
    this.#buffer = '';
    this.#watch = this.#cfg.store.router.watch(
      { resource: this.#csrs.storageResource, start: { kind: 'initial', read: { kind: 'latest' } }, filter: {}, encoding: 'json', bookmarks: false, initialEventsEnd: false },
      {
        onFrames: (frames) => this.#onFrames(frames),
        onEnd: () => {
          // A watch ends on shard reloads and compaction: list and watch again.
          if (!this.#running) return;
          this.#restartTimer = setTimeout(() => {
            this.#watch?.close();
            if (this.#running) this.#openWatch();
          }, 1000);
          this.#restartTimer.unref();
        },
      },
    );
  }

  #onFrames(frames: Uint8Array): void {
    const lines = (this.#buffer + Buffer.from(frames).toString('utf8')).split('\n');
    this.#buffer = lines.pop()!;
    for (const line of lines) {
      if (line === '') continue;
      let ev: { type: string; object: KObject };
      try {
        ev = JSON.parse(line) as { type: string; object: KObject };
      } catch {
        continue;
      }
      if ((ev.type === 'ADDED' || ev.type === 'MODIFIED') && needsSigning(ev.object)) this.#enqueue(ev.object.metadata.name!);
    }
  }

  #enqueue(name: string): void {
    if (!this.#running) return;
    this.#queue.add(name);
    void this.#drain();
  }

  async #drain(): Promise<void> {
    if (this.#draining) return;
    this.#draining = true;
    try {
      while (this.#queue.size > 0 && this.#running) {
        const name = this.#queue.values().next().value!;
        this.#queue.delete(name);
        try {
          await this.#sync(name);
          const r = this.#retries.get(name);
          if (r) clearTimeout(r.timer);
          this.#retries.delete(name);
        } catch (err) {
          this.#retry(name, err);
        }
      }
    } finally {
      this.#draining = false;
    }
  }

  /** The workqueue's per-item exponential backoff (5 ms doubling, here from 500 ms to 60 s). */
  #retry(name: string, err: unknown): void {
    const prev = this.#retries.get(name);
    const delayMs = Math.min(60_000, prev ? prev.delayMs * 2 : 500);
    this.#cfg.log.warn({ csr: name, err: err instanceof Error ? err.message : String(err), retryInMs: delayMs }, 'signing failed; retrying');
    if (prev) clearTimeout(prev.timer);
    const timer = setTimeout(() => this.#enqueue(name), delayMs);
    timer.unref();
    this.#retries.set(name, { timer, delayMs });
  }

  #authority(signerName: string): Promise<SigningAuthority> {
    let a = this.#authorities.get(signerName);
    if (a === undefined) {
      const files = signerFilesFor(this.#cfg.signing, signerName) ?? this.#cfg.defaultCa;
      a = SigningAuthority.load(files.certFile!, files.keyFile!);
      // A CA that failed to load is tried again next time (its files may be fixed).
      a.catch(() => this.#authorities.delete(signerName));
      this.#authorities.set(signerName, a);
    }
    return a;
  }

  async #sync(name: string): Promise<void> {
    const cur = await this.#cfg.store.getObject(this.#csrs, '', name, { kind: 'latest' });
    if (cur === null || !needsSigning(cur.obj)) return;
    const csr = cur.obj;
    const spec = csr['spec'] as { signerName: string; request?: unknown; usages?: unknown; expirationSeconds?: unknown };
    const rules = builtInSigner(spec.signerName)!;
    const usages = Array.isArray(spec.usages) ? spec.usages.map(String) : [];
    // The request passed validation when it was stored; a parse failure now is an error to retry, as the original's.
    const req = await parseRequest(Buffer.from(typeof spec.request === 'string' ? spec.request : '', 'base64')).catch((err: Error) => {
      throw new Error(`unable to parse csr "${name}": ${err.message}`);
    });
    const refusal = rules.check(req, usages);
    const status = { ...((csr['status'] ?? {}) as Record<string, unknown>) };
    if (refusal !== undefined) {
      status['conditions'] = [
        ...conditions(csr),
        { type: 'Failed', status: 'True', reason: 'SignerValidationFailure', message: refusal, lastUpdateTime: new Date().toISOString().replace(/\.\d{3}Z$/, 'Z') },
      ];
      await this.#writeStatus(csr, status);
      this.#cfg.log.info({ csr: name, signer: spec.signerName, reason: refusal }, 'signer refused the certificate signing request');
      return;
    }
    const authority = await this.#authority(spec.signerName);
    const pem = await authority.sign(req, usages, signingDurationMs(this.#cfg.signing.durationMs, spec.expirationSeconds));
    status['certificate'] = Buffer.from(pem).toString('base64');
    if (await this.#writeStatus(csr, status)) {
      this.signedCount++;
      this.#cfg.log.info({ csr: name, signer: spec.signerName }, 'signed certificate');
    }
  }

  /** PUT .../status with the read resourceVersion; false when the request is gone. A conflict throws (retried). */
  async #writeStatus(csr: KObject, status: Record<string, unknown>): Promise<boolean> {
    try {
      await this.#cfg.store.update(this.#csrs, '', csr.metadata.name!, { ...csr, status }, { user: CSR_SIGNING_USER, dryRun: false, fieldManager: 'csrsigning' }, 'status');
      return true;
    } catch (err) {
      if (err instanceof StatusError && err.code === 404) return false;
      throw err;
    }
  }
}
