import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SchemaSet } from '../../src/openapi/schema-set.ts';
import { ALL_TYPES } from '../../src/openapi/types/index.ts';
import { TypedDecoders, TypedDecodeError, duplicateFields, jsonDepthExceeded, scanJson, valueDepthExceeded, MAX_NESTING_DEPTH } from '../../src/typed/index.ts';

const set = new SchemaSet(ALL_TYPES);
const decoders = new TypedDecoders(set);
const configMap = decoders.forSchema('io.orch.api.core.v1.ConfigMap');
const deployment = decoders.forSchema('io.orch.api.apps.v1.Deployment');
const pod = decoders.forSchema('io.orch.api.core.v1.Pod');
const service = decoders.forSchema('io.orch.api.core.v1.Service');

function failsWith(fn: () => unknown, message: string): void {
  assert.throws(fn, (e: unknown) => e instanceof TypedDecodeError && e.message === message);
}

test('ill-typed values get the original decoder messages', () => {
  failsWith(() => configMap.decode({ metadata: { name: 'a' }, data: { a: 5 } }), 'json: cannot unmarshal number into Go struct field ConfigMap.data of type string');
  failsWith(() => deployment.decode({ metadata: {}, spec: { replicas: '3' } }), 'json: cannot unmarshal string into Go struct field DeploymentSpec.spec.replicas of type int32');
  failsWith(() => pod.decode({ metadata: {}, spec: { nodeName: 5 } }), 'json: cannot unmarshal number into Go struct field PodSpec.spec.nodeName of type string');
  failsWith(() => configMap.decode({ metadata: { labels: { a: 5 } } }), 'json: cannot unmarshal number into Go struct field ObjectMeta.metadata.labels of type string');
  failsWith(() => configMap.decode({ metadata: { annotations: 5 } }), 'json: cannot unmarshal number into Go struct field ObjectMeta.metadata.annotations of type map[string]string');
  failsWith(() => configMap.decode({ metadata: { finalizers: 'x' } }), 'json: cannot unmarshal string into Go struct field ObjectMeta.metadata.finalizers of type []string');
  failsWith(() => configMap.decode({ metadata: {}, immutable: 'yes' }), 'json: cannot unmarshal string into Go struct field ConfigMap.immutable of type bool');
  failsWith(() => configMap.decode({ metadata: { name: 12345 } }), 'json: cannot unmarshal number into Go struct field ObjectMeta.metadata.name of type string');
  failsWith(() => configMap.decode({ metadata: {}, binaryData: { a: 'not base64!' } }), 'illegal base64 data at input byte 3');
  failsWith(() => pod.decode({ metadata: {}, spec: { containers: [{ name: 'a', image: 'b', ports: [{ containerPort: 1.5 }] }] } }), 'json: cannot unmarshal number 1.5 into Go struct field ContainerPort.spec.containers.ports.containerPort of type int32');
  failsWith(() => deployment.decode({ metadata: {}, spec: { replicas: 2 ** 31 } }), 'json: cannot unmarshal number 2147483648 into Go struct field DeploymentSpec.spec.replicas of type int32');
  failsWith(() => configMap.decode({ metadata: { creationTimestamp: 'yesterday' } }), 'parsing time "yesterday" as "2006-01-02T15:04:05Z07:00": cannot parse "yesterday" as "2006"');
  failsWith(() => service.decode({ metadata: {}, spec: { ports: [{ port: 80, targetPort: true }] } }), 'json: cannot unmarshal bool into Go struct field ServicePort.spec.ports.targetPort of type int32');
  failsWith(() => pod.decode({ metadata: {}, spec: { containers: [{ name: 'a', resources: { limits: { cpu: 'lots' } } }] } }), "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'");
  failsWith(() => configMap.decode({ metadata: 5 }), 'json: cannot unmarshal number into Go struct field ConfigMap.metadata of type v1.ObjectMeta');
});

test('well-typed values pass unchanged; null is a zero value', () => {
  const obj = {
    metadata: { name: 'a', labels: { x: 'y' }, creationTimestamp: null, generation: 3 },
    data: { k: 'v' },
    binaryData: { b: 'aGVsbG8=' },
    immutable: false,
  };
  const before = JSON.stringify(obj);
  assert.deepEqual(configMap.decode(obj), []);
  assert.equal(JSON.stringify(obj), before);
  assert.deepEqual(service.decode({ metadata: {}, spec: { ports: [{ port: 80, targetPort: 'http' }, { port: 81, targetPort: 8080 }] } }), []);
  assert.deepEqual(pod.decode({ metadata: {}, spec: { containers: [{ name: 'a', resources: { limits: { cpu: '500m', memory: '1Gi' }, requests: { cpu: 1 } } }] } }), []);
});

test('bytes are kept as Go writes them back: line breaks dropped, unused bits of the last quantum cleared', () => {
  // Go's StdEncoding reads "o05=" as the bytes of "o04=" (the last digit's unused bits ignored) and writes
  // those bytes canonically, in JSON as in Protobuf (fuzz seed 1302, case 20404).
  const obj = { metadata: {}, binaryData: { one: 'o05=', two: 'aGVsbG9=', three: 'aGVsbG8=', split: 'aGVs\nbG8=', none: 'aGVsbG8h' } };
  assert.deepEqual(configMap.decode(obj), []);
  assert.deepEqual(obj.binaryData, { one: 'o04=', two: 'aGVsbG8=', three: 'aGVsbG8=', split: 'aGVsbG8=', none: 'aGVsbG8h' });
  for (const kept of Object.values(obj.binaryData)) assert.equal(Buffer.from(kept, 'base64').toString('base64'), kept, 'canonical');
  const secret = decoders.forSchema('io.orch.api.core.v1.Secret');
  const s = { metadata: {}, data: { k: 'jB==' } };
  assert.deepEqual(secret.decode(s), []);
  assert.equal(s.data.k, 'jA==');
});

test('unknown fields are dropped and reported with their full path', () => {
  const obj: Record<string, unknown> = {
    metadata: { name: 'a', nmae: 'b' },
    spec: { foo: 1, template: { spec: { containers: [{ name: 'c', image: 'i', bar: true }] } } },
    extra: {},
  };
  assert.deepEqual(deployment.decode(obj), ['metadata.nmae', 'spec.foo', 'spec.template.spec.containers[0].bar', 'extra']);
  assert.deepEqual(obj, { metadata: { name: 'a' }, spec: { template: { spec: { containers: [{ name: 'c', image: 'i' }] } } } });
  // Field names are case-sensitive, as sigs.k8s.io/json decodes them.
  const cased: Record<string, unknown> = { metadata: {}, Data: { a: 'b' } };
  assert.deepEqual(configMap.decode(cased), ['Data']);
});

test('opaque values stay as sent, within the nesting limit', () => {
  let deep: unknown = {};
  for (let i = 0; i < MAX_NESTING_DEPTH + 5; i++) deep = { a: deep };
  assert.throws(() => configMap.decode({ metadata: { managedFields: [{ manager: 'm', fieldsV1: deep }] } }), TypedDecodeError);
  const fine = { metadata: { managedFields: [{ manager: 'm', fieldsV1: { 'f:data': { 'f:a': {} } } }] } };
  assert.deepEqual(configMap.decode(fine), []);
  assert.deepEqual(fine.metadata.managedFields[0]!.fieldsV1, { 'f:data': { 'f:a': {} } });
});

test('duplicate keys are found with their paths', () => {
  assert.deepEqual(duplicateFields('{"spec":{"replicas":1,"replicas":2},"a":[{"x":1,"y":"\\"x\\"","x":2}]}'), ['spec.replicas', 'a[0].x']);
  assert.deepEqual(duplicateFields('{"a":{"b":1},"c":{"b":1}}'), []);
  assert.deepEqual(duplicateFields('{"a\\u0062":1,"ab":2}'), ['ab']);
  assert.deepEqual(duplicateFields('{"ü":{"é":1,"é":2}}'), ['ü.é']);
  // Many keys: hashed, not compared pairwise.
  const many = Object.fromEntries(Array.from({ length: 50_000 }, (_, i) => [`k${i}`, i]));
  assert.deepEqual(duplicateFields(JSON.stringify(many)), []);
});

test('nesting depth of text and values; deep values never overflow the stack', () => {
  const b = (s: string) => Buffer.from(s);
  assert.equal(jsonDepthExceeded(b('['.repeat(10))), -1);
  assert.equal(jsonDepthExceeded(b('{"a":"[[\\"[[["}'), 2), -1);
  assert.equal(jsonDepthExceeded(b('[[['), 2), 2);
  assert.equal(scanJson(b('[[{"a":1}]]'), 2).tooDeepAt, 2);
  let v: unknown = [];
  for (let i = 0; i < 200_000; i++) v = [v];
  assert.equal(valueDepthExceeded(v, 0), true);
  assert.equal(valueDepthExceeded([[1]], 0), false);
});
