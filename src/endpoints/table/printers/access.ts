/**
 * Access control and admission: role bindings, certificate signing requests
 * and webhook configurations. Roles and cluster roles have no printer in
 * the original and get the default Name / Created At table.
 */
import { AGE, NAME, column, text, wide } from '../columns.ts';
import { humanDuration } from '../format.ts';
import { arr, metadataOf, obj, objs, optInt, str } from '../json.ts';
import type { Printer, Registration } from '../printer.ts';
import type { JsonObject } from '../types.ts';
import { apiGroup } from '../../../naming/index.ts';

/** rbac.SubjectsStrings: users, groups and `namespace/name` service accounts, each ", "-joined. */
function subjects(o: JsonObject): [string, string, string] {
  const users: string[] = [];
  const groups: string[] = [];
  const serviceAccounts: string[] = [];
  for (const s of objs(o['subjects'])) {
    const name = str(s['name']);
    switch (s['kind']) {
      case 'User':
        users.push(name);
        break;
      case 'Group':
        groups.push(name);
        break;
      case 'ServiceAccount':
        serviceAccounts.push(`${str(s['namespace'])}/${name}`);
        break;
    }
  }
  return [users.join(', '), groups.join(', '), serviceAccounts.join(', ')];
}

function bindingPrinter(scope: 'roleBinding' | 'clusterRoleBinding'): Printer {
  return {
    columns: [
      NAME,
      column('Role', 'string', scope === 'roleBinding' ? 'RoleBinding.roleRef' : 'ClusterRoleBinding.roleRef'),
      AGE,
      wide('Users', 'string', text(`Users in the ${scope}`)),
      wide('Groups', 'string', text(`Groups in the ${scope}`)),
      wide('ServiceAccounts', 'string', text(`ServiceAccounts in the ${scope}`)),
    ],
    cells(o, clock) {
      const meta = metadataOf(o);
      const ref = obj(o['roleRef']);
      return [str(meta['name']), `${str(ref['kind'])}/${str(ref['name'])}`, clock.since(meta['creationTimestamp']), ...subjects(o)];
    },
  };
}

export const roleBindingPrinter = bindingPrinter('roleBinding');
export const clusterRoleBindingPrinter = bindingPrinter('clusterRoleBinding');

/** extractCSRStatus: Denied over Approved over Pending, then ",Failed" and ",Issued". */
function csrCondition(o: JsonObject): string {
  const status = obj(o['status']);
  const types = new Set(objs(status['conditions']).map((c) => c['type']));
  let text = types.has('Denied') ? 'Denied' : types.has('Approved') ? 'Approved' : 'Pending';
  if (types.has('Failed')) text += ',Failed';
  if (str(status['certificate']) !== '') text += ',Issued';
  return text;
}

export const certificateSigningRequestPrinter: Printer = {
  columns: [
    NAME,
    AGE,
    column('SignerName', 'string', 'CertificateSigningRequestSpec.signerName'),
    column('Requestor', 'string', 'CertificateSigningRequestSpec.request'),
    column('RequestedDuration', 'string', 'CertificateSigningRequestSpec.expirationSeconds'),
    column('Condition', 'string', 'CertificateSigningRequestStatus.conditions'),
  ],
  cells(o, clock) {
    const meta = metadataOf(o);
    const spec = obj(o['spec']);
    const seconds = optInt(spec['expirationSeconds']);
    return [
      str(meta['name']),
      clock.since(meta['creationTimestamp']),
      str(spec['signerName']) || '<none>',
      str(spec['username']),
      seconds === undefined ? '<none>' : humanDuration(seconds * 1000),
      csrCondition(o),
    ];
  },
};

const webhookPrinter: Printer = {
  columns: [NAME, column('Webhooks', 'integer', text('Webhooks indicates the number of webhooks registered in this configuration')), AGE],
  cells(o, clock) {
    const meta = metadataOf(o);
    return [str(meta['name']), arr(o['webhooks']).length, clock.since(meta['creationTimestamp'])];
  },
};

export const registrations: readonly Registration[] = [
  { group: apiGroup('rbac.authorization'), kind: 'RoleBinding', printer: roleBindingPrinter },
  { group: apiGroup('rbac.authorization'), kind: 'ClusterRoleBinding', printer: clusterRoleBindingPrinter },
  { group: apiGroup('certificates'), kind: 'CertificateSigningRequest', printer: certificateSigningRequestPrinter },
  { group: apiGroup('admissionregistration'), kind: 'MutatingWebhookConfiguration', printer: webhookPrinter },
  { group: apiGroup('admissionregistration'), kind: 'ValidatingWebhookConfiguration', printer: webhookPrinter },
];
