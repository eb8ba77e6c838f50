/** apply-patch+yaml bodies (apply-body.ts): YAML 1.1 as the original reads it, JSON, errors. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { decodeApplyBody } from '../../src/apply/apply-body.ts';
import { StatusError } from '../../src/api/status.ts';

describe('decodeApplyBody', () => {
  it('reads JSON, which kubectl sends', () => {
    assert.deepEqual(decodeApplyBody(new TextEncoder().encode('{"apiVersion":"v1","kind":"ConfigMap","data":{"a":"1"}}')), {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      data: { a: '1' },
    });
  });

  it('reads YAML with Go YAML 1.1 scalars; timestamps stay strings', () => {
    assert.deepEqual(decodeApplyBody('a: yes\nb: 010\nc: 2024-01-01T00:00:00Z\nd: 1:30\ne: ~\nf: "yes"\n'), {
      a: true,
      b: 8,
      c: '2024-01-01T00:00:00Z',
      d: '1:30',
      e: null,
      f: 'yes',
    });
  });

  it('keeps the last of repeated keys and the first document', () => {
    assert.deepEqual(decodeApplyBody('a: 1\na: 2\n---\nb: 3\n'), { a: 2 });
  });

  it('an empty body is null (FieldManager.apply answers 400)', () => {
    assert.equal(decodeApplyBody(''), null);
  });

  it('malformed YAML is a 400', () => {
    assert.throws(
      () => decodeApplyBody('a: ['),
      (err: unknown) => err instanceof StatusError && err.code === 400 && err.message.startsWith('error decoding patch: '),
    );
  });
});

describe('client YAML and the process', () => {
  it('a collection used as a map key writes no process warning (stderr is not the client\'s)', async () => {
    const warnings: string[] = [];
    const onWarning = (w: Error): void => {
      warnings.push(w.message);
    };
    process.on('warning', onWarning);
    try {
      decodeApplyBody('apiVersion: v1\nkind: ConfigMap\n? [a, b]\n: c\n');
      await new Promise((r) => setTimeout(r, 50));
      assert.deepEqual(warnings, []);
    } finally {
      process.off('warning', onWarning);
    }
  });
});
