/**
 * Reads the kubeconfig file that names an authorization webhook
 * (`--authorization-webhook-config-file`), as the original's webhook client
 * reads it: the current context's cluster (server URL, CA file or data,
 * insecure-skip-tls-verify) and user (client certificate and key, file or
 * data; or a bearer token, inline or from a file). Relative file names are
 * relative to the kubeconfig's directory. Every problem refuses the start.
 *
 * A credential is only ever sent over TLS: a plain-HTTP server with a
 * client certificate or token configured is refused.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { parse } from 'yaml';

export interface WebhookClientConfig {
  readonly url: URL;
  readonly ca?: Buffer | undefined;
  readonly insecureSkipTlsVerify: boolean;
  readonly cert?: Buffer | undefined;
  readonly key?: Buffer | undefined;
  readonly token?: string | undefined;
}

export class WebhookConfigError extends Error {
  constructor(file: string, detail: string) {
    super(`invalid authorization webhook config file ${file}: ${detail}`);
    this.name = 'WebhookConfigError';
  }
}

type Json = Record<string, unknown>;

function isObject(v: unknown): v is Json {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function named(list: unknown, name: string, what: string, fail: (d: string) => never): Json {
  if (!Array.isArray(list)) fail(`no ${what}s`);
  for (const entry of list as unknown[]) {
    if (isObject(entry) && entry['name'] === name) {
      const body = entry[what];
      if (!isObject(body)) fail(`${what} ${JSON.stringify(name)} has no ${what} section`);
      return body;
    }
  }
  return fail(`${what} ${JSON.stringify(name)} not found`);
}

export async function loadWebhookConfig(file: string): Promise<WebhookClientConfig> {
  const fail = (detail: string): never => {
    throw new WebhookConfigError(file, detail);
  };
  let doc: unknown;
  try {
    doc = parse(await readFile(file, 'utf8'));
  } catch (err) {
    if (err instanceof WebhookConfigError) throw err;
    return fail(err instanceof Error ? err.message : String(err));
  }
  if (!isObject(doc)) return fail('not a kubeconfig');
  const dir = path.dirname(file);
  const str = (o: Json, k: string): string | undefined => {
    const v = o[k];
    if (v === undefined || v === null || v === '') return undefined;
    if (typeof v !== 'string') fail(`${k}: expected a string`);
    return v as string;
  };
  // The current context, or the only one there is (the original's loader picks current-context).
  let contextName = str(doc, 'current-context');
  const contexts = Array.isArray(doc['contexts']) ? (doc['contexts'] as unknown[]) : [];
  if (contextName === undefined && contexts.length === 1 && isObject(contexts[0])) contextName = String(contexts[0]['name'] ?? '');
  let clusterName: string | undefined;
  let userName: string | undefined;
  if (contextName !== undefined) {
    const ctx = named(doc['contexts'], contextName, 'context', fail);
    clusterName = str(ctx, 'cluster');
    userName = str(ctx, 'user');
  } else {
    const clusters = Array.isArray(doc['clusters']) ? (doc['clusters'] as unknown[]) : [];
    if (clusters.length !== 1 || !isObject(clusters[0])) return fail('no current-context and not exactly one cluster');
    clusterName = String(clusters[0]['name'] ?? '');
  }
  if (clusterName === undefined) return fail('the context names no cluster');
  const cluster = named(doc['clusters'], clusterName, 'cluster', fail);
  const server = str(cluster, 'server');
  if (server === undefined) return fail(`cluster ${JSON.stringify(clusterName)} has no server`);
  let url: URL;
  try {
    url = new URL(server);
  } catch {
    return fail(`server ${JSON.stringify(server)} is not a URL`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return fail(`server ${JSON.stringify(server)} must be https`);
  const readData = async (o: Json, fileKey: string, dataKey: string): Promise<Buffer | undefined> => {
    const data = str(o, dataKey);
    if (data !== undefined) return Buffer.from(data, 'base64');
    const f = str(o, fileKey);
    if (f === undefined) return undefined;
    try {
      return await readFile(path.resolve(dir, f));
    } catch (err) {
      return fail(`${fileKey}: ${err instanceof Error ? err.message : String(err)}`);
    }
  };
  const ca = await readData(cluster, 'certificate-authority', 'certificate-authority-data');
  const insecure = cluster['insecure-skip-tls-verify'] === true;
  let cert: Buffer | undefined;
  let key: Buffer | undefined;
  let token: string | undefined;
  if (userName !== undefined) {
    const user = named(doc['users'], userName, 'user', fail);
    cert = await readData(user, 'client-certificate', 'client-certificate-data');
    key = await readData(user, 'client-key', 'client-key-data');
    if ((cert === undefined) !== (key === undefined)) return fail(`user ${JSON.stringify(userName)} needs both a client certificate and its key`);
    token = str(user, 'token');
    const tokenFile = str(user, 'tokenFile');
    if (token === undefined && tokenFile !== undefined) {
      try {
        token = (await readFile(path.resolve(dir, tokenFile), 'utf8')).trim();
      } catch (err) {
        return fail(`tokenFile: ${err instanceof Error ? err.message : String(err)}`);
      }
    }
  }
  if (url.protocol === 'http:' && (cert !== undefined || token !== undefined)) {
    return fail('credentials are only sent over https; the server is http');
  }
  return { url, ca, insecureSkipTlsVerify: insecure, cert, key, token };
}
