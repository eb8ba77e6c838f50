/**
 * CSRApprover approves node client certificate requests, as the original's
 * csrapproving controller (sarapprove.go): a pending request (no Approved or
 * Denied condition, no certificate) for the node-agent client signer whose
 * PKCS#10 request is a node client certificate — organization exactly
 * `system:nodes`, common name `system:node:<name>`, no subjectAltName, usages
 * exactly key encipherment, digital signature, client auth — is approved
 * when its requester may `create` certificatesigningrequests/selfnodeclient
 * (the common name is the requester's own name: a node renewing) or
 * certificatesigningrequests/nodeclient (a bootstrapper asking for a node),
 * checked through the server's authorizer as a SubjectAccessReview would.
 * Anything else is left for a person to approve or deny.
 */
import { x509 } from '../pki/x509.ts';
import { apiGroup, names } from '../naming/index.ts';
import { StatusError } from '../api/status.ts';
import type { KObject } from '../registry/object.ts';
import type { Authorizer } from '../authz/types.ts';
import type { UserInfo } from '../server/context.ts';
import { pemBlocks } from '../registry/strategies/csr-pem.ts';
import { Informer, objectKeyOf } from './informer.ts';
import { WorkQueue } from './work-queue.ts';
import { controllerUser, errText, lookupType, type ControllerContext } from './controller-context.ts';
import type { ElectedController } from './leader-election.ts';

const USER = controllerUser('certificate-controller');
const NODE_CLIENT_USAGES = ['client auth', 'digital signature', 'key encipherment'];

interface Recognizer {
  readonly subresource: 'selfnodeclient' | 'nodeclient';
  readonly message: string;
  recognize(csr: KObject, req: ParsedRequest): boolean;
}

export interface ParsedRequest {
  readonly commonName: string;
  readonly organizations: readonly string[];
  /** Count of DNS, email, IP and URI names. */
  readonly altNames: number;
}

/** The subject and subjectAltName count of spec.request (base64 of a PEM CSR), or undefined. */
export function parseRequest(request: unknown): ParsedRequest | undefined {
  if (typeof request !== 'string') return undefined;
  const block = pemBlocks(Buffer.from(request, 'base64').toString('latin1'))[0];
  if (block === undefined || block.type !== 'CERTIFICATE REQUEST') return undefined;
  try {
    const csr = new x509.Pkcs10CertificateRequest(block.bytes);
    const ext = csr.getExtension('2.5.29.17');
    const san = ext === null ? null : new x509.SubjectAlternativeNameExtension(ext.rawData);
    return {
      commonName: csr.subjectName.getField('CN')[0] ?? '',
      organizations: csr.subjectName.getField('O'),
      altNames: san === null ? 0 : san.names.items.length,
    };
  } catch {
    return undefined;
  }
}

function specOf(csr: KObject): Record<string, unknown> {
  const spec = csr['spec'];
  return spec !== null && typeof spec === 'object' && !Array.isArray(spec) ? (spec as Record<string, unknown>) : {};
}

/** The original's IsKubeletClientCSR with its signer check. */
export function isNodeClientCert(csr: KObject, req: ParsedRequest): boolean {
  const spec = specOf(csr);
  if (spec['signerName'] !== names.signers.apiServerClientNodeAgent) return false;
  if (req.organizations.length !== 1 || req.organizations[0] !== 'system:nodes') return false;
  if (req.altNames > 0) return false;
  if (!req.commonName.startsWith('system:node:')) return false;
  const usages = Array.isArray(spec['usages']) ? [...new Set(spec['usages'] as string[])].sort() : [];
  return usages.length === NODE_CLIENT_USAGES.length && usages.every((u, i) => u === NODE_CLIENT_USAGES[i]);
}

const RECOGNIZERS: readonly Recognizer[] = [
  {
    subresource: 'selfnodeclient',
    message: 'Auto approving self kubelet client certificate after SubjectAccessReview.',
    recognize: (csr, req) => specOf(csr)['username'] === req.commonName && isNodeClientCert(csr, req),
  },
  {
    subresource: 'nodeclient',
    message: 'Auto approving kubelet client certificate after SubjectAccessReview.',
    recognize: isNodeClientCert,
  },
];

function requester(csr: KObject): UserInfo {
  const spec = specOf(csr);
  const extra = spec['extra'];
  return {
    name: typeof spec['username'] === 'string' ? spec['username'] : '',
    uid: typeof spec['uid'] === 'string' ? spec['uid'] : undefined,
    groups: Array.isArray(spec['groups']) ? (spec['groups'] as unknown[]).filter((g): g is string => typeof g === 'string') : [],
    extra: extra !== null && typeof extra === 'object' && !Array.isArray(extra) ? (extra as Record<string, string[]>) : undefined,
  };
}

export class CsrApprover implements ElectedController {
  readonly name = 'csrapproving';
  readonly #ctx: ControllerContext;
  readonly #authorizer: Authorizer;
  readonly #csrs: Informer;
  readonly #queue: WorkQueue;
  approved = 0;

  constructor(ctx: ControllerContext, authorizer: Authorizer) {
    this.#ctx = ctx;
    this.#authorizer = authorizer;
    this.#csrs = new Informer(ctx.store, lookupType(ctx.registry, apiGroup('certificates'), 'certificatesigningrequests'));
    this.#queue = new WorkQueue((k) => this.#sync(k), (key, err) => ctx.log.warn({ controller: this.name, key, err: errText(err) }, 'csr approver sync failed'));
    this.#csrs.onEvent((type, obj) => {
      if (type !== 'DELETED') this.#queue.add(objectKeyOf(obj));
    });
  }

  async start(): Promise<void> {
    this.#queue.resume();
    await this.#csrs.start();
  }

  stop(): void {
    this.#queue.stop();
    this.#csrs.stop();
  }

  async drained(): Promise<void> {
    await this.#queue.drained();
  }

  async #sync(name: string): Promise<void> {
    const csr = this.#csrs.get('', name);
    if (csr === undefined || csr.metadata.deletionTimestamp) return;
    const status = (csr['status'] ?? {}) as { certificate?: unknown; conditions?: Array<{ type?: string }> };
    if (typeof status.certificate === 'string' && status.certificate !== '') return;
    if ((status.conditions ?? []).some((c) => c?.type === 'Approved' || c?.type === 'Denied')) return;
    const req = parseRequest(specOf(csr)['request']);
    if (req === undefined) return;
    const user = requester(csr);
    for (const r of RECOGNIZERS) {
      if (!r.recognize(csr, req)) continue;
      const decision = await this.#authorizer.authorize({
        user,
        verb: 'create',
        isResourceRequest: true,
        path: '',
        namespace: '',
        apiGroup: apiGroup('certificates'),
        apiVersion: '*',
        resource: 'certificatesigningrequests',
        subresource: r.subresource,
        name: '',
      });
      if (decision.decision !== 'allow') continue;
      await this.#approve(csr, r.message);
      return;
    }
  }

  async #approve(csr: KObject, message: string): Promise<void> {
    const now = new Date(this.#ctx.now()).toISOString().replace(/\.\d{3}Z$/, 'Z');
    const status = (csr['status'] ?? {}) as { conditions?: unknown[] };
    const next: KObject = {
      ...csr,
      status: {
        ...status,
        conditions: [...(status.conditions ?? []), { type: 'Approved', status: 'True', reason: 'AutoApproved', message, lastUpdateTime: now, lastTransitionTime: now }],
      },
    };
    try {
      // resourceVersion kept: a request changed meanwhile is looked at again rather than approved blind.
      await this.#ctx.store.update(this.#csrs.resourceType, '', csr.metadata.name!, next, { user: USER, dryRun: false, fieldManager: 'certificate-controller' }, 'approval');
      this.approved++;
      this.#ctx.log.info({ controller: this.name, csr: csr.metadata.name }, message);
    } catch (err) {
      if (err instanceof StatusError && (err.code === 404 || err.code === 409)) return;
      throw err;
    }
  }
}
