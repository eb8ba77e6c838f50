/**
 * The ABAC policy file (`--authorization-policy-file`), read as the
 * original's abac.NewFromFile reads it: one JSON object per line; blank
 * lines and lines starting with `#` are skipped. A line with
 * `apiVersion: abac.authorization.<domain>/v1beta1` and `kind: Policy` is a
 * versioned policy (`spec` holds the fields); a line without apiVersion or
 * kind is the unversioned v0 form (fields at the top) and is converted with
 * the original's v0 defaults. Any other line stops the start, naming the
 * file and line.
 */
import { GROUP_AUTHENTICATED } from '../../authn/types.ts';
import { names } from '../../naming/index.ts';

/** The ABAC group: `abac.authorization.kubernetes.io` in the original's spelling. */
export const ABAC_GROUP = `abac.authorization.${names.domain}`;
export const ABAC_API_VERSION = `${ABAC_GROUP}/v1beta1`;

export interface PolicySpec {
  readonly user: string;
  readonly group: string;
  readonly readonly: boolean;
  readonly apiGroup: string;
  readonly resource: string;
  readonly namespace: string;
  readonly nonResourcePath: string;
}

export class PolicyFileError extends Error {
  constructor(path: string, line: number, data: string, cause: string) {
    // The line is shown cut short: it is policy, not a credential, but it is untrusted text.
    const shown = data.length > 200 ? `${data.slice(0, 200)}...` : data;
    super(`error reading policy file ${path}, line ${line}: ${shown}: ${cause}`);
    this.name = 'PolicyFileError';
  }
}

type Json = Record<string, unknown>;

function isObject(v: unknown): v is Json {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Reads the typed fields of a policy body; a field of the wrong type is an error, as Go's decoder makes it. */
function fields(body: Json, where: string): PolicySpec {
  const s = (k: string): string => {
    const v = body[k];
    if (v === undefined || v === null) return '';
    if (typeof v !== 'string') throw new Error(`${where}${k}: expected a string, got ${JSON.stringify(v)}`);
    return v;
  };
  const ro = body['readonly'];
  if (ro !== undefined && ro !== null && typeof ro !== 'boolean') throw new Error(`${where}readonly: expected a boolean, got ${JSON.stringify(ro)}`);
  return {
    user: s('user'),
    group: s('group'),
    readonly: ro === true,
    apiGroup: s('apiGroup'),
    resource: s('resource'),
    namespace: s('namespace'),
    nonResourcePath: s('nonResourcePath'),
  };
}

/** v1beta1: `*` as user or group means every authenticated subject. */
function fromV1beta1(spec: PolicySpec): PolicySpec {
  if (spec.user === '*' || spec.group === '*') return { ...spec, user: '', group: GROUP_AUTHENTICATED };
  return spec;
}

/** v0 (unversioned): empty or `*` subject = authenticated, empty namespace/resource = all, any group. */
function fromV0(p: PolicySpec): PolicySpec {
  let { user, group, namespace, resource, nonResourcePath } = p;
  if (user === '' && group === '') group = GROUP_AUTHENTICATED;
  if (user === '*' || group === '*') {
    group = GROUP_AUTHENTICATED;
    user = '';
  }
  if (namespace === '') namespace = '*';
  if (resource === '') {
    resource = '*';
    nonResourcePath = '*';
  }
  return { user, group, readonly: p.readonly, namespace, resource, nonResourcePath, apiGroup: '*' };
}

/** Parses one line (already known not to be blank or a comment). */
function parseLine(line: string): { policy: PolicySpec; unversioned: boolean } {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch (err) {
    throw new Error(err instanceof Error ? err.message : String(err));
  }
  if (!isObject(value)) throw new Error('a policy must be a JSON object');
  const apiVersion = value['apiVersion'];
  const kind = value['kind'];
  if (apiVersion !== undefined && typeof apiVersion !== 'string') throw new Error('apiVersion: expected a string');
  if (kind !== undefined && typeof kind !== 'string') throw new Error('kind: expected a string');
  if (apiVersion === ABAC_API_VERSION && kind === 'Policy') {
    const spec = value['spec'];
    if (spec !== undefined && spec !== null && !isObject(spec)) throw new Error('spec: expected an object');
    return { policy: fromV1beta1(fields(isObject(spec) ? spec : {}, 'spec.')), unversioned: false };
  }
  // Anything else (no version, no kind, a version we do not know) is read as v0, as the original's
  // decoder falls back for missing-version, missing-kind and not-registered errors.
  return { policy: fromV0(fields(value, '')), unversioned: true };
}

export interface ParsedPolicyFile {
  readonly policies: readonly PolicySpec[];
  /** Lines in the unversioned form (the original warns about them). */
  readonly unversionedLines: number;
}

export function parsePolicyFile(text: string, path: string): ParsedPolicyFile {
  const policies: PolicySpec[] = [];
  let unversionedLines = 0;
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const raw = lines[i]!.replace(/\r$/, '');
    const trimmed = raw.trim();
    if (trimmed === '' || trimmed.startsWith('#')) continue;
    try {
      const { policy, unversioned } = parseLine(raw);
      policies.push(policy);
      if (unversioned) unversionedLines++;
    } catch (err) {
      throw new PolicyFileError(path, i + 1, raw, err instanceof Error ? err.message : String(err));
    }
  }
  return { policies, unversionedLines };
}
