/**
 * Metadata rules on create and update: paths, reasons and messages as the
 * original's ValidateObjectMeta / ValidateObjectMetaUpdate print them.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { validateObjectMeta, validateObjectMetaUpdate } from '../../../src/registry/validation/object-meta.ts';
import type { FieldError } from '../../../src/registry/strategy.ts';

const namespaced = { namespaced: true, nameRule: 'subdomain' } as const;
const cluster = { namespaced: false, nameRule: 'subdomain' } as const;

function lines(errs: FieldError[]): string[] {
  return errs.map((e) => `${e.field}: ${e.message}`);
}

describe('validateObjectMeta', () => {
  it('accepts a plain object', () => {
    assert.deepEqual(validateObjectMeta({ name: 'web', namespace: 'default' }, namespaced), []);
  });

  it('requires a name or generateName', () => {
    assert.deepEqual(lines(validateObjectMeta({ namespace: 'default' }, namespaced)), ['metadata.name: Required value: name or generateName is required']);
    assert.equal(validateObjectMeta({ namespace: 'default' }, namespaced)[0]!.type, 'FieldValueRequired');
    // Virtual types (reviews) need no name.
    assert.deepEqual(validateObjectMeta({}, { namespaced: false, virtual: true }), []);
  });

  it('checks the name by the type rule', () => {
    assert.deepEqual(lines(validateObjectMeta({ name: 'Web', namespace: 'default' }, namespaced)), [
      "metadata.name: Invalid value: \"Web\": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
    ]);
    assert.deepEqual(lines(validateObjectMeta({ name: 'a.b' }, { namespaced: false, nameRule: 'label' })), [
      'metadata.name: Invalid value: "a.b": must not contain dots',
    ]);
    assert.deepEqual(validateObjectMeta({ name: 'system:admin' }, { namespaced: false, nameRule: 'path-segment' }), []);
  });

  it('checks generateName as a prefix', () => {
    assert.deepEqual(validateObjectMeta({ generateName: 'web-', name: 'web-x7k2p', namespace: 'default' }, namespaced), []);
    const errs = validateObjectMeta({ generateName: 'Web-', name: 'web-abcde', namespace: 'default' }, namespaced);
    assert.equal(errs.length, 1);
    assert.equal(errs[0]!.field, 'metadata.generateName');
  });

  it('requires a namespace for namespaced types and forbids it for others', () => {
    assert.deepEqual(lines(validateObjectMeta({ name: 'a' }, namespaced)), ['metadata.namespace: Required value']);
    assert.deepEqual(lines(validateObjectMeta({ name: 'a', namespace: 'x' }, cluster)), ['metadata.namespace: Forbidden: not allowed on this type']);
    assert.deepEqual(lines(validateObjectMeta({ name: 'a', namespace: 'a.b' }, namespaced)), ['metadata.namespace: Invalid value: "a.b": must not contain dots']);
  });

  it('checks label keys and values', () => {
    const errs = lines(validateObjectMeta({ name: 'a', labels: { 'bad key!': 'ok', good: '-bad' } }, cluster));
    assert.equal(errs.length, 2);
    assert.match(errs[0]!, /^metadata\.labels: Invalid value: "bad key!": name part must consist of/);
    assert.match(errs[1]!, /^metadata\.labels: Invalid value: "-bad": a valid label must be an empty string/);
  });

  it('checks annotation keys case-insensitively and their total size', () => {
    assert.deepEqual(validateObjectMeta({ name: 'a', annotations: { 'Example.com/Key': 'v' } }, cluster), []);
    const big = { name: 'a', annotations: { k: 'x'.repeat(256 * 1024) } };
    assert.deepEqual(lines(validateObjectMeta(big, cluster)), ['metadata.annotations: Too long: may not be more than 262144 bytes']);
    assert.deepEqual(validateObjectMeta({ name: 'a', annotations: { k: 'x'.repeat(256 * 1024 - 1) } }, cluster), []);
  });

  it('checks finalizers are qualified names and not both orphan and foregroundDeletion', () => {
    assert.deepEqual(validateObjectMeta({ name: 'a', finalizers: ['example.com/cleanup', 'orphan'] }, cluster), []);
    assert.match(lines(validateObjectMeta({ name: 'a', finalizers: ['bad/finalizer/x'] }, cluster))[0]!, /^metadata\.finalizers: Invalid value: "bad\/finalizer\/x": a qualified name/);
    assert.deepEqual(lines(validateObjectMeta({ name: 'a', finalizers: ['orphan', 'foregroundDeletion'] }, cluster)), [
      'metadata.finalizers: Invalid value: ["orphan","foregroundDeletion"]: finalizer orphan and foregroundDeletion cannot be both set',
    ]);
  });

  it('checks owner references', () => {
    const errs = lines(validateObjectMeta({ name: 'a', ownerReferences: [{ apiVersion: 'apps/', kind: '', name: '', uid: '' }] }, cluster));
    assert.deepEqual(errs, [
      'metadata.ownerReferences.apiVersion: Invalid value: "apps/": version must not be empty',
      'metadata.ownerReferences.kind: Invalid value: "": kind must not be empty',
      'metadata.ownerReferences.name: Invalid value: "": name must not be empty',
      'metadata.ownerReferences.uid: Invalid value: "": uid must not be empty',
    ]);
    const two = validateObjectMeta(
      {
        name: 'a',
        ownerReferences: [
          { apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'r1', uid: '1', controller: true },
          { apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'r2', uid: '2', controller: true },
        ],
      },
      cluster,
    );
    assert.equal(two.length, 1);
    assert.match(two[0]!.message, /Only one reference can have Controller set to true\. Found "true" in references for ReplicaSet\/r1 and ReplicaSet\/r2$/);
    const event = validateObjectMeta({ name: 'a', ownerReferences: [{ apiVersion: 'v1', kind: 'Event', name: 'e', uid: '1' }] }, cluster);
    assert.match(event[0]!.message, /\/v1, Kind=Event is disallowed from being an owner$/);
  });

  it('rejects a negative generation', () => {
    assert.deepEqual(lines(validateObjectMeta({ name: 'a', generation: -1 }, cluster)), ['metadata.generation: Invalid value: -1: must be greater than or equal to 0']);
  });
});

describe('validateObjectMetaUpdate', () => {
  const old = { name: 'a', namespace: 'ns', uid: 'u1', creationTimestamp: '2024-01-01T00:00:00Z', generation: 2 };

  it('accepts label changes', () => {
    assert.deepEqual(validateObjectMetaUpdate({ ...old, labels: { a: 'b' } }, old), []);
  });

  it('keeps name, namespace, uid and creationTimestamp', () => {
    const errs = lines(validateObjectMetaUpdate({ ...old, name: 'b', namespace: 'other', uid: 'u2', creationTimestamp: '2025-01-01T00:00:00Z' }, old));
    assert.deepEqual(errs, [
      'metadata.name: Invalid value: "b": field is immutable',
      'metadata.namespace: Invalid value: "other": field is immutable',
      'metadata.uid: Invalid value: "u2": field is immutable',
      'metadata.creationTimestamp: Invalid value: "2025-01-01T00:00:00Z": field is immutable',
    ]);
  });

  it('refuses a lower generation', () => {
    assert.deepEqual(lines(validateObjectMetaUpdate({ ...old, generation: 1 }, old)), ['metadata.generation: Invalid value: 1: must not be decremented']);
  });

  it('refuses new finalizers on an object being deleted', () => {
    const deleting = { ...old, deletionTimestamp: '2024-02-01T00:00:00Z', finalizers: ['a.io/x'] };
    assert.deepEqual(validateObjectMetaUpdate({ ...deleting }, deleting), []);
    assert.deepEqual(validateObjectMetaUpdate({ ...deleting, finalizers: [] }, deleting), []);
    assert.deepEqual(lines(validateObjectMetaUpdate({ ...deleting, finalizers: ['a.io/x', 'b.io/y'] }, deleting)), [
      'metadata.finalizers: Forbidden: no new finalizers can be added if the object is being deleted, found new finalizers []string{"b.io/y"}',
    ]);
  });
});
