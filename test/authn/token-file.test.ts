import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, writeFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseTokenFile, StaticTokenAuthenticator } from '../../src/authn/token-file.ts';
import { parseCsv } from '../../src/authn/csv.ts';

const SECRET = 's3cr3t-token-value';

describe('token file parsing', () => {
  it('reads token, user, uid and optional quoted groups', () => {
    const { tokens, warnings } = parseTokenFile(
      ['tok1,alice,uid-1', 'tok2,bob,uid-2,"dev,ops"', 'tok3,carol,uid-3,solo', 'tok4,dave,uid-4,"g1,g2",extra,columns'].join('\n'),
      'tokens.csv',
    );
    assert.deepEqual(warnings, []);
    assert.deepEqual(tokens, [
      { token: 'tok1', user: { name: 'alice', uid: 'uid-1', groups: [] } },
      { token: 'tok2', user: { name: 'bob', uid: 'uid-2', groups: ['dev', 'ops'] } },
      { token: 'tok3', user: { name: 'carol', uid: 'uid-3', groups: ['solo'] } },
      { token: 'tok4', user: { name: 'dave', uid: 'uid-4', groups: ['g1', 'g2'] } },
    ]);
  });

  it('skips blank and whitespace-only lines and accepts CRLF and a trailing newline', () => {
    const { tokens } = parseTokenFile('\r\ntok1,alice,u1\r\n   \r\n\t\ntok2,bob,u2\r\n', 'f');
    assert.deepEqual(tokens.map((t) => t.user.name), ['alice', 'bob']);
    assert.equal(tokens[0]!.token, 'tok1', 'no \\r left on the last field');
    assert.equal(tokens[1]!.user.uid, 'u2');
  });

  it('strips a UTF-8 byte-order mark instead of making it part of the first token', () => {
    const { tokens } = parseTokenFile('\ufefftok1,alice,u1\n', 'f');
    assert.equal(tokens[0]!.token, 'tok1');
  });

  it('drops empty group names and omits an empty uid', () => {
    const { tokens } = parseTokenFile('t1,alice,,""\nt2,bob,u2,"a,,b,"\n', 'f');
    assert.deepEqual(tokens[0]!.user, { name: 'alice', groups: [] });
    assert.deepEqual(tokens[1]!.user.groups, ['a', 'b']);
  });

  it('fails on a line with fewer than three columns, naming the file and line but not the token', () => {
    assert.throws(
      () => parseTokenFile(`tok1,alice,u1\n\n${SECRET},bob\n`, 'tokens.csv'),
      (err: Error) => {
        assert.equal(err.message, "token file 'tokens.csv' line 3: must have at least 3 columns (token, user name, user uid), found 2");
        assert.ok(!err.message.includes(SECRET));
        return true;
      },
    );
  });

  it('lets the last duplicate win, with a warning that names the record but not the token', () => {
    const { tokens, warnings } = parseTokenFile(`${SECRET},alice,u1\nother,carol,u3\n${SECRET},bob,u2\n`, 'tokens.csv');
    assert.deepEqual(
      tokens.map((t) => t.user.name),
      ['carol', 'bob'],
    );
    assert.equal(warnings.length, 1);
    assert.equal(warnings[0], "duplicate token has been found in token file 'tokens.csv', record number '3' (line 3)");
    const a = new StaticTokenAuthenticator(tokens);
    assert.equal(a.size, 2);
    const r = a.authenticateToken(SECRET);
    assert.equal(r.kind === 'user' && r.user.name, 'bob');
  });

  it('skips an empty token with a warning', () => {
    const { tokens, warnings } = parseTokenFile(',alice,u1\ntok,bob,u2\n', 'f');
    assert.deepEqual(tokens.map((t) => t.user.name), ['bob']);
    assert.deepEqual(warnings, ["empty token has been found in token file 'f', record number '1' (line 1)"]);
  });

  it('reports quoting errors by position without echoing the line', () => {
    assert.throws(
      () => parseTokenFile(`ok,a,b\n${SECRET}",alice,u1\n`, 'f'),
      (err: Error) => {
        assert.equal(err.message, `token file 'f': parse error on line 2, column ${SECRET.length + 1}: bare " in non-quoted-field`);
        return true;
      },
    );
    assert.throws(() => parseTokenFile('"unterminated,alice,u1\n', 'f'), /extraneous or missing " in quoted-field/);
    assert.throws(() => parseTokenFile('"tok"x,alice,u1\n', 'f'), /parse error on line 1, column 6: extraneous or missing " in quoted-field/);
  });
});

describe('CSV reader', () => {
  it('handles doubled quotes, commas and newlines inside quoted fields', () => {
    assert.deepEqual(parseCsv('"a ""b"", c","x\ny",z\nnext,1\n'), [
      { fields: ['a "b", c', 'x\ny', 'z'], line: 1 },
      { fields: ['next', '1'], line: 3 },
    ]);
  });

  it('keeps empty fields, including a trailing one', () => {
    assert.deepEqual(parseCsv('a,,b,\n'), [{ fields: ['a', '', 'b', ''], line: 1 }]);
  });

  it('reports the record start when an error follows a multi-line field', () => {
    assert.throws(() => parseCsv('"x\ny"z,1\n'), /^Error: record on line 1; parse error on line 2, column 3: extraneous or missing " in quoted-field$/);
  });
});

describe('static token authenticator', () => {
  const authenticator = new StaticTokenAuthenticator(parseTokenFile(`${SECRET},alice,u1,"dev"\nshort,bob,u2\n`, 'f').tokens);

  it('recognises a listed token', () => {
    assert.deepEqual(authenticator.authenticateToken(SECRET), {
      kind: 'user',
      user: { name: 'alice', uid: 'u1', groups: ['dev'] },
      method: 'token-file',
    });
  });

  it('has no opinion on unknown tokens, prefixes, extensions and near misses', () => {
    for (const t of ['', 'nope', SECRET.slice(0, -1), SECRET + 'x', SECRET.replace('t', 'T'), ' ' + SECRET, 'shor']) {
      assert.deepEqual(authenticator.authenticateToken(t), { kind: 'none' }, JSON.stringify(t));
    }
  });

  it('loads from a file, passing warnings on', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'tokens-'));
    try {
      const file = join(dir, 'tokens.csv');
      await writeFile(file, 'a,alice,u1\na,bob,u2\n');
      const warnings: string[] = [];
      const a = await StaticTokenAuthenticator.fromFile(file, (w) => warnings.push(w));
      assert.equal(warnings.length, 1);
      assert.match(warnings[0]!, /duplicate token .* record number '2'/);
      const r = a.authenticateToken('a');
      assert.equal(r.kind === 'user' && r.user.name, 'bob');
      await assert.rejects(StaticTokenAuthenticator.fromFile(join(dir, 'missing.csv'), () => {}), /unable to read token file '.*missing\.csv': ENOENT/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
