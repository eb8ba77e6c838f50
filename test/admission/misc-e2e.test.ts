/**
 * The storage, ingress, certificate, node, owner-reference, event and
 * external-IP admission plugins end to end on a real server
 * (--authorization-mode=Node,RBAC, the optional plugins enabled with
 * --enable-admission-plugins, EventRateLimit configured through
 * --admission-control-config-file):
 *
 * - a node identity (client certificate O=system:nodes, CN=system:node:n1
 *   from the server's CA) manages its own Node and mirror pods only;
 * - a default StorageClass reaches a new PVC with the protection finalizer;
 *   two defaults refuse the create; an unbound claim cannot grow;
 * - a CSR for the client signer with O=system:masters is refused; approving
 *   needs `approve` on the signer (RBAC), which a grant then gives;
 * - setting blockOwnerDeletion needs the owner's finalizers;
 * - Events past the namespace's burst get 429; externalIPs are refused
 *   (through kubectl).
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import https from 'node:https';
import os from 'node:os';
import path from 'node:path';
import { startTestServer, type HttpAnswer, type TestServer } from '../support/test-server.ts';
import { apiGroup, names } from '../../src/naming/index.ts';
import { CertificateAuthority } from '../../src/pki/ca.ts';
import { generatePemKeyPair } from '../../src/pki/keys.ts';
import { b64, csrPem } from './misc-support.ts';

const BOB = { token: 'bob-token-0123456789abcdef' };
const D = names.domain;
const STORAGE = `/apis/${apiGroup('storage')}/v1`;
const CERTS = `/apis/${apiGroup('certificates')}/v1`;
const RBAC = `/apis/${apiGroup('rbac.authorization')}/v1`;

describe('miscellaneous admission plugins end to end', () => {
  let ts: TestServer;
  let dir: string;
  let nodeAgent: https.Agent;

  const asNode = (method: string, urlPath: string, body?: unknown): Promise<HttpAnswer> =>
    new Promise((resolve, reject) => {
      const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
      const req = https.request(
        {
          host: '127.0.0.1',
          port: ts.securePort,
          method,
          path: urlPath,
          agent: nodeAgent,
          servername: 'localhost',
          headers: { accept: 'application/json', ...(payload ? { 'content-type': 'application/json', 'content-length': String(payload.length) } : {}) },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => {
            const raw = Buffer.concat(chunks);
            resolve({ status: res.statusCode ?? 0, headers: res.headers, body: raw.toString('utf8'), raw, json: <T>() => JSON.parse(raw.toString('utf8')) as T });
          });
        },
      );
      req.on('error', reject);
      req.end(payload);
    });

  const admin = async (method: string, p: string, body?: unknown): Promise<Record<string, unknown>> => {
    const r = await ts.request(method, p, body);
    assert.ok(r.status < 300, `${method} ${p}: ${r.status} ${r.body}`);
    return r.json();
  };
  const message = (r: HttpAnswer): string => r.json<{ message: string }>().message;

  before(async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'admission-misc-'));
    const tokens = path.join(dir, 'tokens.csv');
    await fs.writeFile(tokens, `${BOB.token},bob,uid-bob,"devs"\n`, { mode: 0o600 });
    await fs.writeFile(
      path.join(dir, 'eventratelimit.yaml'),
      `apiVersion: ${names.admissionNames.eventRateLimitConfigGroups[0]}/v1alpha1\nkind: Configuration\nlimits:\n- type: Namespace\n  qps: 1\n  burst: 3\n  cacheSize: 100\n`,
    );
    const admissionConfig = path.join(dir, 'admission.yaml');
    await fs.writeFile(
      admissionConfig,
      `apiVersion: ${names.admissionNames.admissionConfigGroups[0]}/v1\nkind: AdmissionConfiguration\nplugins:\n- name: EventRateLimit\n  path: eventratelimit.yaml\n`,
    );
    ts = await startTestServer([
      '--authorization-mode=Node,RBAC',
      `--token-auth-file=${tokens}`,
      '--enable-admission-plugins=NodeRestriction,OwnerReferencesPermissionEnforcement,EventRateLimit,DenyServiceExternalIPs',
      `--admission-control-config-file=${admissionConfig}`,
    ]);
    // The node's client certificate, from the server's own CA.
    const files = ts.server.files;
    const ca = await CertificateAuthority.load(await fs.readFile(files.caCertPath, 'utf8'), await fs.readFile(files.caKeyPath, 'utf8'));
    const keys = await generatePemKeyPair('ecdsa-p256');
    const cert = await ca.issue({
      subject: { commonName: 'system:node:n1', organizations: ['system:nodes'] },
      usages: ['digital signature', 'key encipherment', 'client auth'],
      publicKey: keys.publicKeyPem,
      durationSeconds: 3600,
    });
    nodeAgent = new https.Agent({ ca: ca.certificatePem, cert, key: keys.privateKeyPem, keepAlive: true });
  });

  after(async () => {
    nodeAgent?.destroy();
    await ts?.stop();
    await fs.rm(dir, { recursive: true, force: true });
  });

  it('NodeRestriction: a node registers and labels itself only, and creates mirror pods of its own', async () => {
    const created = await asNode('POST', '/api/v1/nodes', { apiVersion: 'v1', kind: 'Node', metadata: { name: 'n1', labels: { [`${D}/hostname`]: 'n1' } } });
    assert.equal(created.status, 201, created.body);
    const uid = created.json<{ metadata: { uid: string } }>().metadata.uid;

    const other = await asNode('POST', '/api/v1/nodes', { apiVersion: 'v1', kind: 'Node', metadata: { name: 'n2' } });
    assert.equal(other.status, 403);
    assert.equal(message(other), 'nodes "n2" is forbidden: node "n1" is not allowed to modify node "n2"');

    const node = await (await asNode('GET', '/api/v1/nodes/n1')).json<Record<string, unknown> & { metadata: { labels: Record<string, string> } }>();
    node.metadata.labels[`node-restriction.${D}/dedicated`] = 'yes';
    const relabel = await asNode('PUT', '/api/v1/nodes/n1', node);
    assert.equal(relabel.status, 403);
    assert.equal(message(relabel), `nodes "n1" is forbidden: is not allowed to modify labels: node-restriction.${D}/dedicated`);

    const plain = await asNode('POST', '/api/v1/namespaces/default/pods', {
      apiVersion: 'v1', kind: 'Pod', metadata: { name: 'plain' }, spec: { nodeName: 'n1', containers: [{ name: 'c', image: 'busybox' }] },
    });
    assert.equal(plain.status, 403);
    assert.match(message(plain), /node "n1" can only create mirror pods/);

    const mirror = await asNode('POST', '/api/v1/namespaces/default/pods', {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'static-web-n1', annotations: { [names.annotations.mirrorPod]: 'hash' }, ownerReferences: [{ apiVersion: 'v1', kind: 'Node', name: 'n1', uid, controller: true }] },
      spec: { nodeName: 'n1', containers: [{ name: 'c', image: 'busybox' }] },
    });
    assert.equal(mirror.status, 201, mirror.body);

    await admin('POST', '/api/v1/namespaces/default/pods', { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'on-n2' }, spec: { nodeName: 'n2', containers: [{ name: 'c', image: 'busybox' }] } });
    const del = await asNode('DELETE', '/api/v1/namespaces/default/pods/on-n2');
    assert.equal(del.status, 403);
    assert.equal(message(del), 'pods "on-n2" is forbidden: node "n1" can only delete pods with spec.nodeName set to itself');
    assert.equal((await asNode('DELETE', '/api/v1/namespaces/default/pods/static-web-n1')).status, 200);
  });

  it('DefaultStorageClass, StorageObjectInUseProtection, PersistentVolumeClaimResize (default on)', async () => {
    const sc = (name: string): Record<string, unknown> => ({
      apiVersion: `${apiGroup('storage')}/v1`, kind: 'StorageClass', metadata: { name, annotations: { [names.annotations.defaultStorageClass[0]!]: 'true' } }, provisioner: 'example.com/p',
    });
    const pvc = (name: string): Record<string, unknown> => ({
      apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { name }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } },
    });
    await admin('POST', `${STORAGE}/storageclasses`, sc('fast'));
    const claim = await admin('POST', '/api/v1/namespaces/default/persistentvolumeclaims', pvc('data'));
    assert.equal((claim['spec'] as Record<string, unknown>)['storageClassName'], 'fast');
    assert.deepEqual((claim['metadata'] as { finalizers: string[] }).finalizers, [names.admissionNames.pvcProtectionFinalizer]);

    const grown = { ...claim, spec: { ...(claim['spec'] as object), resources: { requests: { storage: '2Gi' } } } };
    const resize = await ts.request('PUT', '/api/v1/namespaces/default/persistentvolumeclaims/data', grown);
    assert.equal(resize.status, 403);
    assert.equal(message(resize), 'persistentvolumeclaims "data" is forbidden: Only bound persistent volume claims can be expanded');

    await admin('POST', `${STORAGE}/storageclasses`, sc('slow'));
    const two = await ts.request('POST', '/api/v1/namespaces/default/persistentvolumeclaims', pvc('more'));
    assert.equal(two.status, 403);
    assert.equal(message(two), 'persistentvolumeclaims "more" is forbidden: Internal error occurred: 2 default StorageClasses were found');
  });

  it('CertificateSubjectRestriction and CertificateApproval (default on): system:masters refused; approving needs approve on the signer', async () => {
    const masters = await ts.request('POST', `${CERTS}/certificatesigningrequests`, {
      apiVersion: `${apiGroup('certificates')}/v1`, kind: 'CertificateSigningRequest', metadata: { name: 'root' },
      spec: { request: b64(await csrPem('CN=mallory, O=system:masters')), signerName: names.signers.apiServerClient, usages: ['client auth'] },
    });
    assert.equal(masters.status, 403);
    assert.equal(message(masters), `certificatesigningrequests.${apiGroup('certificates')} "root" is forbidden: use of ${names.signers.apiServerClient} signer with system:masters group is not allowed`);

    await admin('POST', `${CERTS}/certificatesigningrequests`, {
      apiVersion: `${apiGroup('certificates')}/v1`, kind: 'CertificateSigningRequest', metadata: { name: 'widget' },
      spec: { request: b64(await csrPem('CN=widget')), signerName: 'example.com/widgets', usages: ['client auth'] },
    });
    // bob may update approvals (RBAC) but has no approve on the signer yet.
    await admin('POST', `${RBAC}/clusterroles`, {
      apiVersion: `${apiGroup('rbac.authorization')}/v1`, kind: 'ClusterRole', metadata: { name: 'csr-approver' },
      rules: [{ apiGroups: [apiGroup('certificates')], resources: ['certificatesigningrequests', 'certificatesigningrequests/approval'], verbs: ['get', 'update'] }],
    });
    await admin('POST', `${RBAC}/clusterrolebindings`, {
      apiVersion: `${apiGroup('rbac.authorization')}/v1`, kind: 'ClusterRoleBinding', metadata: { name: 'bob-csr-approver' },
      roleRef: { apiGroup: apiGroup('rbac.authorization'), kind: 'ClusterRole', name: 'csr-approver' },
      subjects: [{ kind: 'User', apiGroup: apiGroup('rbac.authorization'), name: 'bob' }],
    });
    const approve = async (): Promise<HttpAnswer> => {
      const csr = (await ts.request('GET', `${CERTS}/certificatesigningrequests/widget`, undefined, { as: BOB })).json<Record<string, unknown>>();
      csr['status'] = { conditions: [{ type: 'Approved', status: 'True', reason: 'ByBob', message: 'ok' }] };
      return ts.request('PUT', `${CERTS}/certificatesigningrequests/widget/approval`, csr, { as: BOB });
    };
    const refused = await approve();
    assert.equal(refused.status, 403, refused.body);
    assert.equal(message(refused), `certificatesigningrequests.${apiGroup('certificates')} "widget" is forbidden: user not permitted to approve requests with signerName "example.com/widgets"`);

    await admin('POST', `${RBAC}/clusterroles`, {
      apiVersion: `${apiGroup('rbac.authorization')}/v1`, kind: 'ClusterRole', metadata: { name: 'widget-signer-approver' },
      rules: [{ apiGroups: [apiGroup('certificates')], resources: ['signers'], resourceNames: ['example.com/*'], verbs: ['approve'] }],
    });
    await admin('POST', `${RBAC}/clusterrolebindings`, {
      apiVersion: `${apiGroup('rbac.authorization')}/v1`, kind: 'ClusterRoleBinding', metadata: { name: 'bob-widget-signer-approver' },
      roleRef: { apiGroup: apiGroup('rbac.authorization'), kind: 'ClusterRole', name: 'widget-signer-approver' },
      subjects: [{ kind: 'User', apiGroup: apiGroup('rbac.authorization'), name: 'bob' }],
    });
    // RBAC follows its watches: the grant arrives shortly.
    let approved: HttpAnswer = refused;
    for (let i = 0; i < 100 && approved.status !== 200; i++) {
      await new Promise((r) => setTimeout(r, 50));
      approved = await approve();
    }
    assert.equal(approved.status, 200, approved.body);
  });

  it('OwnerReferencesPermissionEnforcement: blockOwnerDeletion needs the owner\'s finalizers', async () => {
    await admin('POST', `${RBAC}/clusterroles`, {
      apiVersion: `${apiGroup('rbac.authorization')}/v1`, kind: 'ClusterRole', metadata: { name: 'cm-writer' },
      rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['create', 'get', 'update', 'delete'] }],
    });
    await admin('POST', `${RBAC}/clusterrolebindings`, {
      apiVersion: `${apiGroup('rbac.authorization')}/v1`, kind: 'ClusterRoleBinding', metadata: { name: 'bob-cm-writer' },
      roleRef: { apiGroup: apiGroup('rbac.authorization'), kind: 'ClusterRole', name: 'cm-writer' },
      subjects: [{ kind: 'User', apiGroup: apiGroup('rbac.authorization'), name: 'bob' }],
    });
    const cm = (name: string, block: boolean): Record<string, unknown> => ({
      apiVersion: 'v1', kind: 'ConfigMap',
      metadata: { name, ownerReferences: [{ apiVersion: 'v1', kind: 'ReplicationController', name: 'rc', uid: 'rc-uid', ...(block ? { blockOwnerDeletion: true } : {}) }] },
    });
    let owned: HttpAnswer | undefined;
    for (let i = 0; i < 100 && owned?.status !== 201; i++) {
      if (i > 0) await new Promise((r) => setTimeout(r, 50));
      owned = await ts.request('POST', '/api/v1/namespaces/default/configmaps', cm(`owned-${i}`, false), { as: BOB });
    }
    assert.equal(owned?.status, 201, 'a plain owner reference on create is allowed');
    const blocking = await ts.request('POST', '/api/v1/namespaces/default/configmaps', cm('blocking', true), { as: BOB });
    assert.equal(blocking.status, 403);
    assert.match(message(blocking), /^configmaps "blocking" is forbidden: cannot set blockOwnerDeletion if an ownerReference refers to a resource you can't set finalizers on: /);
  });

  it('EventRateLimit: events past the namespace burst get 429', async () => {
    await admin('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'noisy' } });
    const statuses: number[] = [];
    let refusal = '';
    for (let i = 0; i < 20; i++) {
      const r = await ts.request('POST', '/api/v1/namespaces/noisy/events', {
        apiVersion: 'v1', kind: 'Event', metadata: { name: `e${i}` }, involvedObject: { kind: 'Pod', namespace: 'noisy', name: 'p' }, reason: 'R', message: 'm', type: 'Normal',
      });
      statuses.push(r.status);
      if (r.status === 429) refusal = message(r);
    }
    assert.ok(statuses.every((s) => s === 201 || s === 429), statuses.join(','));
    assert.ok(statuses.includes(429), 'twenty events within the burst of 3 at 1/s are not all admitted');
    assert.deepEqual(statuses.slice(0, 3), [201, 201, 201], 'the burst is admitted');
    assert.equal(refusal, 'Too many requests: limit reached on type Namespace for key noisy');
    const dry = await ts.request('POST', '/api/v1/namespaces/noisy/events?dryRun=All', {
      apiVersion: 'v1', kind: 'Event', metadata: { name: 'dry' }, involvedObject: { kind: 'Pod', namespace: 'noisy', name: 'p' }, reason: 'R', message: 'm', type: 'Normal',
    });
    assert.equal(dry.status, 201, 'dry runs are not limited');
  });

  it('DenyServiceExternalIPs: kubectl cannot create a Service with external IPs', async () => {
    const manifest = JSON.stringify({
      apiVersion: 'v1', kind: 'Service', metadata: { name: 'exposed', namespace: 'default' },
      spec: { ports: [{ port: 80 }], externalIPs: ['203.0.113.10'] },
    });
    const r = await ts.kubectl(['create', '-f', '-'], { input: manifest });
    assert.notEqual(r.code, 0);
    assert.match(r.stderr, /services "exposed" is forbidden: Use of external IPs is denied by admission control/);
    const ok = await ts.kubectl(['create', '-f', '-'], { input: JSON.stringify({ apiVersion: 'v1', kind: 'Service', metadata: { name: 'internal', namespace: 'default' }, spec: { ports: [{ port: 80 }] } }) });
    assert.equal(ok.code, 0, ok.stderr);
  });
});
