/** The file formats written by hand: token-file CSV and kubeconfig YAML. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { formatTokenRecord, newBearerToken, parseTokenFile } from '../../src/pki/token-file.ts';
import { renderKubeconfig, serverUrl } from '../../src/pki/kubeconfig.ts';

describe('token file', () => {
  it('formats the documented token,user,uid,"group1,group2" line', () => {
    assert.equal(formatTokenRecord({ token: 't0k', user: 'admin', uid: 'admin', groups: ['system:masters'] }), 't0k,admin,admin,"system:masters"');
    assert.equal(formatTokenRecord({ token: 't', user: 'a,b', uid: '1', groups: ['g1', 'g2'] }), 't,"a,b",1,"g1,g2"');
    assert.equal(formatTokenRecord({ token: 't', user: 'u', uid: '1', groups: [] }), 't,u,1');
  });

  it('parses quoted fields, doubled quotes, CRLF and blank lines, skipping short lines', () => {
    const text = 'a,alice,1,"dev,ops"\r\n\r\nb,"bob ""the builder""",2\nbad,line\nc,carol,3,\n';
    assert.deepEqual(parseTokenFile(text), [
      { token: 'a', user: 'alice', uid: '1', groups: ['dev', 'ops'] },
      { token: 'b', user: 'bob "the builder"', uid: '2', groups: [] },
      { token: 'c', user: 'carol', uid: '3', groups: [] },
    ]);
  });

  it('round-trips what it formats', () => {
    const record = { token: newBearerToken(), user: 'x"y', uid: 'u,1', groups: ['a', 'b'] };
    assert.deepEqual(parseTokenFile(formatTokenRecord(record) + '\n'), [record]);
  });

  it('makes 256-bit base64url tokens', () => {
    const tokens = new Set(Array.from({ length: 20 }, newBearerToken));
    assert.equal(tokens.size, 20);
    for (const token of tokens) assert.match(token, /^[A-Za-z0-9_-]{43}$/);
  });
});

describe('kubeconfig', () => {
  it('brackets IPv6 hosts in server URLs', () => {
    assert.equal(serverUrl('127.0.0.1', 6443), 'https://127.0.0.1:6443');
    assert.equal(serverUrl('::1', 6443), 'https://[::1]:6443');
  });

  it('quotes every scalar, so no value can change the YAML structure', () => {
    const yaml = renderKubeconfig({
      clusterName: 'orch',
      server: 'https://127.0.0.1:6443',
      caCertificatePem: 'ca',
      userName: 'admin-token',
      credentials: { token: '-starts-with-dash: and "quotes"' },
      contextName: 'orch-admin-token',
    });
    assert.match(yaml, /^    token: "-starts-with-dash: and \\"quotes\\""$/m);
    assert.match(yaml, /^current-context: "orch-admin-token"$/m);
    assert.match(yaml, /^    certificate-authority-data: "Y2E="$/m);
  });
});
