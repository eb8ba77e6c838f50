/**
 * The webhook plugins' part of the admission configuration file
 * (`--admission-control-config-file`, spec 5.9 and 9.4; the file itself is
 * read by src/admission/admission-config.ts): the webhook plugins' `WebhookAdmissionConfiguration`
 * (older: `WebhookAdmission`) names a kubeconfig whose users are credentials
 * per webhook host, looked up as the original's AuthenticationInfoResolver:
 * exact `host:port` (services: `<name>.<namespace>.svc:<port>`), then
 * `*.`-prefixed suffixes, then without a 443 port, then `*`.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { parse } from 'yaml';
import { admissionPluginConfig } from '../admission-config.ts';

/** What the server presents to one webhook host. */
export interface WebhookCredentials {
  readonly token?: string | undefined;
  readonly clientCertPem?: string | undefined;
  readonly clientKeyPem?: string | undefined;
  readonly username?: string | undefined;
  readonly password?: string | undefined;
}

export class AdmissionConfigError extends Error {}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

const WEBHOOK_KINDS = ['WebhookAdmissionConfiguration', 'WebhookAdmission'];

function parseYaml(text: string, what: string): unknown {
  try {
    return parse(text, { maxAliasCount: 0 });
  } catch (err) {
    throw new AdmissionConfigError(`${what}: not valid YAML or JSON: ${err instanceof Error ? err.message.split('\n')[0] : String(err)}`);
  }
}

async function readText(file: string, what: string): Promise<string> {
  try {
    return await readFile(file, 'utf8');
  } catch (err) {
    throw new AdmissionConfigError(`${what}: cannot read ${file} (${(err as NodeJS.ErrnoException).code ?? 'error'})`);
  }
}

/** Per-host credentials of a webhook plugin. */
export class CredentialResolver {
  readonly #users: ReadonlyMap<string, WebhookCredentials>;

  constructor(users: ReadonlyMap<string, WebhookCredentials> = new Map()) {
    this.#users = users;
  }

  get empty(): boolean {
    return this.#users.size === 0;
  }

  /** For a URL host (`host` or `host:port` as the URL spells it). */
  forHost(hostPort: string): WebhookCredentials | undefined {
    return this.#lookup(hostPort);
  }

  forService(name: string, namespace: string, port: number): WebhookCredentials | undefined {
    return this.#lookup(`${name}.${namespace}.svc:${port}`);
  }

  #lookup(target: string): WebhookCredentials | undefined {
    const u = this.#users;
    const exactOrStar = (t: string): WebhookCredentials | undefined => {
      const exact = u.get(t);
      if (exact !== undefined) return exact;
      const steps = t.split('.');
      for (let i = 1; i < steps.length; i++) {
        const hit = u.get(`*.${steps.slice(i).join('.')}`);
        if (hit !== undefined) return hit;
      }
      return undefined;
    };
    const found = exactOrStar(target);
    if (found !== undefined) return found;
    const m = /^(.*):443$/.exec(target);
    if (m !== null) {
      const again = exactOrStar(m[1]!);
      if (again !== undefined) return again;
    }
    return u.get('*');
  }
}

async function pem(o: Obj, key: string, dir: string, what: string): Promise<string | undefined> {
  const data = o[`${key}-data`];
  if (typeof data === 'string' && data !== '') return Buffer.from(data, 'base64').toString('utf8');
  const file = o[key];
  if (typeof file === 'string' && file !== '') return readText(path.resolve(dir, file), what);
  return undefined;
}

/** The users of a kubeconfig, by name, as credentials. */
export async function readCredentialsKubeconfig(file: string): Promise<CredentialResolver> {
  const what = `kubeConfigFile ${file}`;
  const doc = parseYaml(await readText(file, what), what);
  if (!isObj(doc)) throw new AdmissionConfigError(`${what}: expected a mapping`);
  const dir = path.dirname(path.resolve(file));
  const users = new Map<string, WebhookCredentials>();
  const list = doc['users'];
  for (const entry of Array.isArray(list) ? list : []) {
    if (!isObj(entry) || typeof entry['name'] !== 'string') continue;
    const user = isObj(entry['user']) ? entry['user'] : {};
    if (user['exec'] !== undefined || user['auth-provider'] !== undefined) {
      throw new AdmissionConfigError(`${what}: user ${JSON.stringify(entry['name'])}: exec and auth-provider users are not supported`);
    }
    let token = typeof user['token'] === 'string' && user['token'] !== '' ? user['token'] : undefined;
    if (token === undefined && typeof user['tokenFile'] === 'string' && user['tokenFile'] !== '') token = (await readText(path.resolve(dir, user['tokenFile']), what)).trim();
    const clientCertPem = await pem(user, 'client-certificate', dir, what);
    const clientKeyPem = await pem(user, 'client-key', dir, what);
    if ((clientCertPem === undefined) !== (clientKeyPem === undefined)) {
      throw new AdmissionConfigError(`${what}: user ${JSON.stringify(entry['name'])}: client-certificate and client-key must be given together`);
    }
    users.set(entry['name'], {
      token,
      clientCertPem,
      clientKeyPem,
      username: typeof user['username'] === 'string' ? user['username'] : undefined,
      password: typeof user['password'] === 'string' ? user['password'] : undefined,
    });
  }
  return new CredentialResolver(users);
}

/** The credentials a webhook plugin (`MutatingAdmissionWebhook`, `ValidatingAdmissionWebhook`) uses, from the flag's file. */
export async function webhookCredentials(configFile: string | undefined, plugin: string): Promise<CredentialResolver> {
  if (configFile === undefined || configFile === '') return new CredentialResolver();
  // The file itself is read as every plugin reads it (src/admission/admission-config.ts).
  const entry = admissionPluginConfig(configFile, plugin);
  if (entry === undefined || entry === null) return new CredentialResolver();
  if (!isObj(entry)) throw new AdmissionConfigError(`--admission-control-config-file: plugin ${plugin}: expected a mapping`);
  const config = entry;
  const dir = path.dirname(path.resolve(configFile));
  if (typeof config['kind'] === 'string' && !WEBHOOK_KINDS.includes(config['kind'])) {
    throw new AdmissionConfigError(`--admission-control-config-file: plugin ${plugin}: expected kind ${WEBHOOK_KINDS[0]}, got ${config['kind']}`);
  }
  const kc = config['kubeConfigFile'];
  if (kc === undefined || kc === null || kc === '') return new CredentialResolver();
  if (typeof kc !== 'string') throw new AdmissionConfigError(`--admission-control-config-file: plugin ${plugin}: kubeConfigFile must be a string`);
  // The original requires an absolute path; a relative one is read against the configuration's directory.
  return readCredentialsKubeconfig(path.resolve(dir, kc));
}
