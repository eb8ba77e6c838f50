/**
 * CSRCleaner garbage-collects CertificateSigningRequests (spec 3.2), as the
 * original's csrcleaner:
 *
 * - approved (issued or not: the spec's row), denied or failed, and that
 *   condition's lastUpdateTime is more than 1 hour old;
 * - pending (no condition) and created more than 24 hours ago;
 * - issued, and the certificate's notAfter has passed.
 *
 * The original polls every hour; this one also looks at each request when it
 * changes and again at its next deadline, so requests go on time. A request
 * is deleted with its UID as precondition.
 */
import { X509Certificate } from 'node:crypto';
import { apiGroup } from '../naming/index.ts';
import { StatusError } from '../api/status.ts';
import type { KObject } from '../registry/object.ts';
import { pemBlocks } from '../registry/strategies/csr-pem.ts';
import { Informer, objectKeyOf } from './informer.ts';
import { WorkQueue } from './work-queue.ts';
import { controllerUser, errText, lookupType, type ControllerContext } from './controller-context.ts';
import type { ElectedController } from './leader-election.ts';

const USER = controllerUser('certificate-controller');
export const APPROVED_EXPIRATION_MS = 60 * 60_000;
export const DENIED_EXPIRATION_MS = 60 * 60_000;
export const PENDING_EXPIRATION_MS = 24 * 60 * 60_000;
const POLLING_INTERVAL_MS = 60 * 60_000;

interface Condition {
  type?: string;
  lastUpdateTime?: string;
}

function conditionsOf(csr: KObject): Condition[] {
  const status = csr['status'] as { conditions?: unknown } | undefined;
  return Array.isArray(status?.conditions) ? (status.conditions as Condition[]).filter((c) => c !== null && typeof c === 'object') : [];
}

function certificateOf(csr: KObject): string {
  const status = csr['status'] as { certificate?: unknown } | undefined;
  return typeof status?.certificate === 'string' ? status.certificate : '';
}

/** notAfter of the first certificate in status.certificate (epoch ms), or undefined. */
export function certificateNotAfter(certificate: string): number | undefined {
  const block = pemBlocks(Buffer.from(certificate, 'base64').toString('latin1')).find((b) => b.type === 'CERTIFICATE');
  if (block === undefined) return undefined;
  try {
    return Date.parse(new X509Certificate(block.bytes).validTo);
  } catch {
    return undefined;
  }
}

function timeOf(t: string | undefined): number | undefined {
  if (t === undefined || t === '') return undefined;
  const ms = Date.parse(t);
  return Number.isNaN(ms) ? undefined : ms;
}

/** When `csr` becomes garbage (epoch ms), or undefined when it never does as it stands. */
export function csrDeadline(csr: KObject): number | undefined {
  const deadlines: number[] = [];
  const conditions = conditionsOf(csr);
  const cert = certificateOf(csr);
  for (const c of conditions) {
    const at = timeOf(c.lastUpdateTime);
    if (at === undefined) continue;
    if (c.type === 'Approved') deadlines.push(at + APPROVED_EXPIRATION_MS);
    else if (c.type === 'Denied' || c.type === 'Failed') deadlines.push(at + DENIED_EXPIRATION_MS);
  }
  if (conditions.length === 0 && cert === '') {
    const created = timeOf(csr.metadata.creationTimestamp ?? undefined);
    if (created !== undefined) deadlines.push(created + PENDING_EXPIRATION_MS);
  }
  if (cert !== '') {
    const notAfter = certificateNotAfter(cert);
    if (notAfter !== undefined) deadlines.push(notAfter);
  }
  return deadlines.length === 0 ? undefined : Math.min(...deadlines);
}

export class CsrCleaner implements ElectedController {
  readonly name = 'csrcleaner';
  readonly #ctx: ControllerContext;
  readonly #csrs: Informer;
  readonly #queue: WorkQueue;
  #poll: NodeJS.Timeout | undefined;
  deleted = 0;

  constructor(ctx: ControllerContext) {
    this.#ctx = ctx;
    this.#csrs = new Informer(ctx.store, lookupType(ctx.registry, apiGroup('certificates'), 'certificatesigningrequests'));
    this.#queue = new WorkQueue((k) => this.#sync(k), (key, err) => ctx.log.warn({ controller: this.name, key, err: errText(err) }, 'csr cleaner sync failed'));
    this.#csrs.onEvent((type, obj) => {
      if (type !== 'DELETED') this.#queue.add(objectKeyOf(obj));
    });
  }

  async start(): Promise<void> {
    this.#queue.resume();
    await this.#csrs.start();
    this.#poll = setInterval(() => this.sweep(), POLLING_INTERVAL_MS);
    this.#poll.unref();
  }

  stop(): void {
    clearInterval(this.#poll);
    this.#queue.stop();
    this.#csrs.stop();
  }

  /** Looks at every request now (the original's hourly pass). */
  sweep(): void {
    for (const csr of this.#csrs.list()) this.#queue.add(objectKeyOf(csr));
  }

  async drained(): Promise<void> {
    await this.#queue.drained();
  }

  async #sync(name: string): Promise<void> {
    const csr = this.#csrs.get('', name);
    if (csr === undefined || csr.metadata.deletionTimestamp) return;
    const deadline = csrDeadline(csr);
    if (deadline === undefined) return;
    const now = this.#ctx.now();
    if (deadline > now) {
      this.#queue.addAfter(name, deadline - now);
      return;
    }
    try {
      await this.#ctx.store.delete(this.#csrs.resourceType, '', name, { user: USER, dryRun: false, preconditions: { uid: csr.metadata.uid } });
      this.deleted++;
      this.#ctx.log.info({ controller: this.name, csr: name }, 'deleted certificate signing request past its deadline');
    } catch (err) {
      if (err instanceof StatusError && (err.code === 404 || err.code === 409)) return;
      throw err;
    }
  }
}
