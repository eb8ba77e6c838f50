/**
 * Reads the webhook's connection file (spec 5.3): a kubeconfig whose
 * cluster is the remote service (`server`, `certificate-authority` or
 * `-data`, `tls-server-name`) and whose user is the API server itself
 * (`client-certificate`/`client-key` or their `-data`, or a `token`).
 * The current context picks them; without one, a file with a single
 * context (or a single cluster and at most one user) is unambiguous.
 * Relative paths resolve against the file's directory, as kubectl's do.
 *
 * Refused, since a credential travels to the webhook: a server that is not
 * https, insecure-skip-tls-verify, and plugin-based users (exec,
 * auth-provider), which this server does not run.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { parse } from 'yaml';

export interface WebhookConnection {
  readonly server: URL;
  /** PEM roots for the webhook's certificate; the host's when undefined. */
  readonly caPem: string | undefined;
  readonly tlsServerName: string | undefined;
  readonly clientCertPem: string | undefined;
  readonly clientKeyPem: string | undefined;
  readonly token: string | undefined;
}

export class KubeconfigError extends Error {}

type Obj = Record<string, unknown>;

function isObj(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function named(list: unknown, what: string, name: string | undefined): Obj | undefined {
  if (list === undefined || list === null) return undefined;
  if (!Array.isArray(list)) throw new KubeconfigError(`${what}s must be a list`);
  const entries = list.filter(isObj);
  if (name === undefined) return entries.length === 1 ? entries[0] : undefined;
  const hit = entries.find((e) => e['name'] === name);
  if (hit === undefined) throw new KubeconfigError(`${what} ${JSON.stringify(name)} not found`);
  return hit;
}

function str(o: Obj | undefined, key: string): string | undefined {
  const v = o?.[key];
  if (v === undefined || v === null || v === '') return undefined;
  if (typeof v !== 'string') throw new KubeconfigError(`${key} must be a string`);
  return v;
}

/** A PEM given inline (base64 `-data`) or as a file; inline wins, as in client-go. */
async function pem(o: Obj | undefined, key: string, dir: string): Promise<string | undefined> {
  const data = str(o, `${key}-data`);
  if (data !== undefined) {
    const text = Buffer.from(data, 'base64').toString('utf8');
    if (!text.includes('-----BEGIN')) throw new KubeconfigError(`${key}-data is not base64 of a PEM block`);
    return text;
  }
  const file = str(o, key);
  if (file === undefined) return undefined;
  const full = path.resolve(dir, file);
  try {
    return await readFile(full, 'utf8');
  } catch (err) {
    throw new KubeconfigError(`${key}: cannot read ${full} (${(err as NodeJS.ErrnoException).code ?? 'error'})`);
  }
}

export function parseKubeconfigText(text: string): Obj {
  let doc: unknown;
  try {
    doc = parse(text, { maxAliasCount: 0 });
  } catch (err) {
    throw new KubeconfigError(`not valid YAML: ${err instanceof Error ? err.message.split('\n')[0] : String(err)}`);
  }
  if (!isObj(doc)) throw new KubeconfigError('not a kubeconfig (expected a mapping)');
  return doc;
}

export async function loadWebhookKubeconfig(file: string): Promise<WebhookConnection> {
  const wrap = (err: unknown): never => {
    throw new KubeconfigError(`--authentication-token-webhook-config-file ${file}: ${err instanceof Error ? err.message : String(err)}`);
  };
  try {
    const doc = parseKubeconfigText(await readFile(file, 'utf8'));
    const dir = path.dirname(path.resolve(file));
    const current = str(doc, 'current-context');
    let clusterName: string | undefined;
    let userName: string | undefined;
    const context = named(doc['contexts'], 'context', current);
    if (context !== undefined) {
      const c = isObj(context['context']) ? context['context'] : {};
      clusterName = str(c, 'cluster');
      userName = str(c, 'user');
      if (clusterName === undefined) throw new KubeconfigError('the context names no cluster');
    }
    const clusterEntry = named(doc['clusters'], 'cluster', clusterName);
    if (clusterEntry === undefined || !isObj(clusterEntry['cluster'])) throw new KubeconfigError('no cluster to use (set current-context)');
    const cluster = clusterEntry['cluster'];
    const userEntry = userName !== undefined || context === undefined ? named(doc['users'], 'user', userName) : undefined;
    const user = isObj(userEntry?.['user']) ? userEntry['user'] : undefined;

    const serverText = str(cluster, 'server');
    if (serverText === undefined) throw new KubeconfigError('the cluster has no server');
    let server: URL;
    try {
      server = new URL(serverText);
    } catch {
      throw new KubeconfigError(`server ${JSON.stringify(serverText)} is not a URL`);
    }
    if (server.protocol !== 'https:') throw new KubeconfigError(`server ${JSON.stringify(serverText)} must be https`);
    if (cluster['insecure-skip-tls-verify'] === true) throw new KubeconfigError('insecure-skip-tls-verify is not allowed: tokens are sent to the webhook');
    if (user !== undefined && (user['exec'] !== undefined || user['auth-provider'] !== undefined)) {
      throw new KubeconfigError('exec and auth-provider users are not supported; use a client certificate or a token');
    }
    const clientCertPem = await pem(user, 'client-certificate', dir);
    const clientKeyPem = await pem(user, 'client-key', dir);
    if ((clientCertPem === undefined) !== (clientKeyPem === undefined)) throw new KubeconfigError('client-certificate and client-key must be given together');
    let token = str(user, 'token');
    const tokenFile = str(user, 'tokenFile');
    if (token === undefined && tokenFile !== undefined) token = (await readFile(path.resolve(dir, tokenFile), 'utf8')).trim();
    return {
      server,
      caPem: await pem(cluster, 'certificate-authority', dir),
      tlsServerName: str(cluster, 'tls-server-name'),
      clientCertPem,
      clientKeyPem,
      token,
    };
  } catch (err) {
    return wrap(err);
  }
}
