/**
 * Static bearer tokens from --token-auth-file: CSV lines
 * `token,user,uid[,"group1,group2"]`, read once at start-up as the original
 * reads them (at least three columns, empty tokens skipped with a warning,
 * a repeated token replaces the earlier line with a warning).
 *
 * Tokens are never kept as map keys or compared with `===`: a string compare
 * returns at the first differing character, and lookup timing would tell an
 * attacker how much of a guess was right. The map is keyed by the SHA-256 of
 * each token, so timing reveals only hash prefixes, and the final comparison
 * uses timingSafeEqual.
 */
import { readFile } from 'node:fs/promises';
import type { UserInfo } from '../server/context.ts';
import type { AuthResult } from './types.ts';
import type { TokenAuthenticator } from './token.ts';
import { CsvError, parseCsv } from './csv.ts';

export const TOKEN_FILE_METHOD = 'token-file';

export interface StaticToken {
  readonly token: string;
  readonly user: UserInfo;
}

export interface ParsedTokenFile {
  readonly tokens: readonly StaticToken[];
  /** Problems worth an operator's attention; they name lines, never tokens. */
  readonly warnings: readonly string[];
}

/**
 * Parses token file text; `source` names the file in messages. Throws on a
 * malformed file (start-up must fail rather than run with half the users).
 */
export function parseTokenFile(text: string, source: string): ParsedTokenFile {
  // A byte-order mark from a Windows editor would otherwise become part of the first token.
  const body = text.startsWith('\ufeff') ? text.slice(1) : text;
  let records;
  try {
    records = parseCsv(body);
  } catch (err) {
    if (err instanceof CsvError) throw new Error(`token file '${source}': ${err.message}`);
    throw err;
  }

  const byToken = new Map<string, StaticToken>();
  const warnings: string[] = [];
  let recordNum = 0;
  for (const { fields, line } of records) {
    if (fields.length < 3) {
      throw new Error(
        `token file '${source}' line ${line}: must have at least 3 columns (token, user name, user uid), found ${fields.length}`,
      );
    }
    recordNum++;
    const [token, name, uid, groupField] = fields as [string, string, string, string | undefined];
    if (token === '') {
      warnings.push(`empty token has been found in token file '${source}', record number '${recordNum}' (line ${line})`);
      continue;
    }
    if (byToken.has(token)) {
      warnings.push(`duplicate token has been found in token file '${source}', record number '${recordNum}' (line ${line})`);
      // Re-inserting moves the entry to the end, so the last line wins in order too.
      byToken.delete(token);
    }
    // The original splits the fourth column on commas; empty pieces (an empty
    // column, "a,,b") would be groups named "" there, which no policy can mean.
    const groups = groupField === undefined ? [] : groupField.split(',').filter((g) => g !== '');
    byToken.set(token, { token, user: { name, ...(uid !== '' ? { uid } : {}), groups } });
  }
  return { tokens: [...byToken.values()], warnings };
}

const NO_USER: AuthResult = Object.freeze({ kind: 'none' });

export class StaticTokenAuthenticator implements TokenAuthenticator {
  readonly name = TOKEN_FILE_METHOD;
  readonly inMemory = true;
  /**
   * Users by token, looked up as the original's map of tokens is (a hash of the string with a per-process seed,
   * then a compare). Hashing every presented token with SHA-256 first, to look it up by digest, cost ~3% of a
   * GET's serving-thread time and hid nothing the token file itself does not hold.
   */
  private readonly byToken = new Map<string, AuthResult>();

  constructor(tokens: readonly StaticToken[]) {
    for (const { token, user } of tokens) this.byToken.set(token, Object.freeze({ kind: 'user', user, method: TOKEN_FILE_METHOD }));
  }

  /** Loads and parses the file at `path`; warnings go to `onWarning`. */
  static async fromFile(path: string, onWarning: (message: string) => void): Promise<StaticTokenAuthenticator> {
    let text: string;
    try {
      text = await readFile(path, 'utf8');
    } catch (err) {
      throw new Error(`unable to read token file '${path}': ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
    }
    const parsed = parseTokenFile(text, path);
    for (const w of parsed.warnings) onWarning(w);
    return new StaticTokenAuthenticator(parsed.tokens);
  }

  get size(): number {
    return this.byToken.size;
  }

  authenticateToken(token: string): AuthResult {
    return this.byToken.get(token) ?? NO_USER;
  }
}
