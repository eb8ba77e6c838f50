/**
 * Writes kubeconfig YAML by hand: one cluster, one user, one context. Every
 * scalar is a JSON string, which is also a valid YAML double-quoted scalar, so
 * no value (a URL's colon, a token's leading dash) can change the structure.
 */

export type KubeconfigCredentials =
  | { clientCertificatePem: string; clientKeyPem: string }
  | { token: string };

export interface KubeconfigSpec {
  clusterName: string;
  server: string;
  caCertificatePem: string;
  userName: string;
  credentials: KubeconfigCredentials;
  contextName: string;
}

/** `https://host:port`, bracketing IPv6 literals. */
export function serverUrl(host: string, port: number): string {
  return `https://${host.includes(':') ? `[${host}]` : host}:${port}`;
}

export function renderKubeconfig(spec: KubeconfigSpec): string {
  const q = (value: string) => JSON.stringify(value);
  const b64 = (pem: string) => q(Buffer.from(pem, 'utf8').toString('base64'));
  const creds = spec.credentials;
  const userLines =
    'token' in creds
      ? [`    token: ${q(creds.token)}`]
      : [`    client-certificate-data: ${b64(creds.clientCertificatePem)}`, `    client-key-data: ${b64(creds.clientKeyPem)}`];
  return [
    'apiVersion: v1',
    'kind: Config',
    'clusters:',
    `- name: ${q(spec.clusterName)}`,
    '  cluster:',
    `    server: ${q(spec.server)}`,
    `    certificate-authority-data: ${b64(spec.caCertificatePem)}`,
    'users:',
    `- name: ${q(spec.userName)}`,
    '  user:',
    ...userLines,
    'contexts:',
    `- name: ${q(spec.contextName)}`,
    '  context:',
    `    cluster: ${q(spec.clusterName)}`,
    `    user: ${q(spec.userName)}`,
    `current-context: ${q(spec.contextName)}`,
    'preferences: {}',
    '',
  ].join('\n');
}
