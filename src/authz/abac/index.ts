/** The ABAC mode from its policy file (read once at start, as the original). */
import { readFile } from 'node:fs/promises';
import { AbacAuthorizer } from './authorizer.ts';
import { parsePolicyFile } from './policy.ts';

export { AbacAuthorizer, policyMatches, subjectMatches } from './authorizer.ts';
export { ABAC_API_VERSION, ABAC_GROUP, PolicyFileError, parsePolicyFile, type PolicySpec } from './policy.ts';

export async function loadAbacAuthorizer(path: string, warn: (msg: string) => void): Promise<AbacAuthorizer> {
  const parsed = parsePolicyFile(await readFile(path, 'utf8'), path);
  if (parsed.unversionedLines > 0) warn(`Policy file ${path} contained unversioned rules. See the ABAC mode documentation for the file format.`);
  return new AbacAuthorizer(parsed.policies);
}
