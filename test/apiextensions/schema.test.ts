/**
 * The CRD schema machinery alone: the structural check with the original's
 * messages (cases after apiextensions-apiserver's schema/validation_test.go),
 * validation messages of custom resources (kube-openapi's wording), pruning
 * (after structural/pruning/algorithm_test.go: unknown fields dropped,
 * preserved where marked, apiVersion/kind/metadata kept at the root and in
 * embedded resources), defaulting (structural/defaulting/algorithm_test.go:
 * missing fields and non-nullable nulls defaulted, recursively) and the
 * JSONPath subset of printer columns. Markers in the kubernetes flavor.
 */
import '../support/kubernetes-flavor.ts';
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { applyDefaults, fullMessage, prune, validateStructural, validateValue, type JSONSchemaProps } from '../../src/apiextensions/schema.ts';
import { findResults } from '../../src/apiextensions/jsonpath.ts';
import type { FieldError } from '../../src/registry/strategy.ts';

const P = 'spec.versions[0].schema.openAPIV3Schema';
const structural = (s: JSONSchemaProps): string[] => validateStructural(P, s).map(fullMessage);

describe('structural schema check', () => {
  it('accepts a structural schema', () => {
    assert.deepEqual(
      structural({
        type: 'object',
        properties: {
          spec: { type: 'object', properties: { replicas: { type: 'integer', minimum: 0 }, port: { 'x-kubernetes-int-or-string': true }, any: { 'x-kubernetes-preserve-unknown-fields': true } } },
          metadata: { type: 'object', properties: { name: { type: 'string', maxLength: 10 } } },
        },
      }),
      [],
    );
  });

  it('requires types where fields and items are specified', () => {
    assert.deepEqual(structural({ type: 'object', properties: { a: {}, b: { type: 'array', items: {} } } }), [
      `${P}.properties[a].type: Required value: must not be empty for specified object fields`,
      `${P}.properties[b].items.type: Required value: must not be empty for specified array items`,
    ]);
    assert.deepEqual(structural({ properties: {} }), [`${P}.type: Required value: must not be empty at the root`]);
    assert.deepEqual(structural({ type: 'string' }), [`${P}.type: Invalid value: "string": must be object at the root`]);
    assert.deepEqual(structural({ type: 'object', properties: { l: { type: 'array' } } }), [`${P}.properties[l].items: Required value: must be specified`]);
  });

  it('forbids generics inside value validations, except the int-or-string patterns', () => {
    assert.deepEqual(structural({ type: 'object', properties: { a: { type: 'string', anyOf: [{ type: 'string', description: 'x' }] } } }), [
      `${P}.properties[a].anyOf[0].description: Forbidden: must be empty to be structural`,
      `${P}.properties[a].anyOf[0].type: Forbidden: must be empty to be structural`,
    ]);
    assert.deepEqual(structural({ type: 'object', properties: { p: { 'x-kubernetes-int-or-string': true, anyOf: [{ type: 'integer' }, { type: 'string' }] } } }), []);
    assert.deepEqual(structural({ type: 'object', properties: { p: { type: 'object', allOf: [{ properties: { metadata: {} } }] } } }), [
      `${P}.properties[p].allOf[0].properties[metadata]: Forbidden: must not be specified in a nested context`,
    ]);
  });

  it('checks the markers and the root metadata', () => {
    assert.deepEqual(structural({ type: 'object', properties: { a: { type: 'string', 'x-kubernetes-preserve-unknown-fields': false } } }), [
      `${P}.properties[a].x-kubernetes-preserve-unknown-fields: Invalid value: false: must be true or undefined`,
    ]);
    assert.deepEqual(structural({ type: 'object', properties: { e: { type: 'string', 'x-kubernetes-embedded-resource': true } } }), [
      `${P}.properties[e].properties: Required value: must not be empty if x-kubernetes-embedded-resource is true without x-kubernetes-preserve-unknown-fields`,
      `${P}.properties[e].type: Invalid value: "string": must be object if x-kubernetes-embedded-resource is true`,
    ]);
    assert.deepEqual(structural({ type: 'object', properties: { metadata: { type: 'object', properties: { labels: { type: 'object' } } } } }), [
      `${P}.properties[metadata]: Forbidden: must not specify anything other than name and generateName, but metadata is implicitly specified`,
    ]);
    assert.deepEqual(structural({ type: 'object', additionalProperties: { type: 'string' } }), [`${P}.additionalProperties: Forbidden: must not be used at the root`]);
    assert.deepEqual(structural({ type: 'object', properties: { l: { type: 'array', items: { type: 'string' }, 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['k'] } } }), [
      `${P}.properties[l].items.type: Invalid value: "string": must be object if parent array's x-kubernetes-list-type is map`,
    ]);
    assert.deepEqual(structural({ type: 'object', properties: { l: { type: 'array', items: { type: 'object', properties: { k: { type: 'string' } } }, 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['k', 'x'] } } }), [
      `${P}.properties[l].x-kubernetes-list-map-keys[1]: Required value: entries must all be names of item properties`,
    ]);
  });
});

function errorsOf(s: JSONSchemaProps, v: unknown, path = ''): string[] {
  const errs: FieldError[] = [];
  validateValue(s, v, path, errs);
  return errs.map((e) => `${e.field}: ${e.message}`);
}

describe('validation of custom resources', () => {
  const spec: JSONSchemaProps = {
    type: 'object',
    required: ['replicas'],
    properties: {
      replicas: { type: 'integer', minimum: 1, maximum: 5 },
      mode: { type: 'string', enum: ['a', 'b'] },
      name: { type: 'string', pattern: '^[a-z]+$', maxLength: 5 },
      when: { type: 'string', format: 'date-time' },
      tags: { type: 'array', items: { type: 'string' }, maxItems: 2, 'x-kubernetes-list-type': 'set' },
      port: { 'x-kubernetes-int-or-string': true },
      opt: { type: 'string', nullable: true },
      labels: { type: 'object', additionalProperties: { type: 'string' } },
    },
  };
  it('accepts a valid object', () => {
    assert.deepEqual(errorsOf(spec, { replicas: 2, mode: 'a', name: 'abc', when: '2024-01-02T03:04:05Z', tags: ['x'], port: 'http', opt: null, labels: { a: 'b' } }, 'spec'), []);
    assert.deepEqual(errorsOf(spec, { replicas: 2, port: 8080 }, 'spec'), []);
  });
  it('reports what the original reports', () => {
    assert.deepEqual(errorsOf(spec, { replicas: 'two' }, 'spec'), ['spec.replicas: Invalid value: "string": spec.replicas in body must be of type integer: "string"']);
    assert.deepEqual(errorsOf(spec, {}, 'spec'), ['spec.replicas: Required value']);
    assert.deepEqual(errorsOf(spec, { replicas: 0, mode: 'c' }, 'spec'), [
      'spec.replicas: Invalid value: 0: spec.replicas in body should be greater than or equal to 1',
      'spec.mode: Unsupported value: "c": supported values: "a", "b"',
    ]);
    assert.deepEqual(errorsOf(spec, { replicas: 9, name: 'ABCDEFG' }, 'spec'), [
      'spec.replicas: Invalid value: 9: spec.replicas in body should be less than or equal to 5',
      'spec.name: Too long: may not be longer than 5',
      "spec.name: Invalid value: \"ABCDEFG\": spec.name in body should match '^[a-z]+$'",
    ]);
    assert.deepEqual(errorsOf(spec, { replicas: 1, when: 'yesterday' }, 'spec'), ['spec.when: Invalid value: "yesterday": spec.when in body must be of type date-time: "yesterday"']);
    assert.deepEqual(errorsOf(spec, { replicas: 1, tags: ['a', 'a', 'b'] }, 'spec'), ['spec.tags: Too many: 3: must have at most 2 items', 'spec.tags[1]: Duplicate value: "a"']);
    assert.deepEqual(errorsOf(spec, { replicas: 1, port: 1.5, mode: null }, 'spec'), [
      'spec.port: Invalid value: "number": spec.port in body must be of type integer,string: "number"',
      'spec.mode: Invalid value: "null": spec.mode in body must be of type string: "null"',
    ]);
    assert.deepEqual(errorsOf(spec, { replicas: 1, labels: { a: 1 } }, 'spec'), ['spec.labels.a: Invalid value: "integer": spec.labels.a in body must be of type string: "integer"']);
  });
});

describe('patterns are RE2', () => {
  it('matches a pattern that backtracks exponentially in JavaScript, and refuses what RE2 refuses', () => {
    const s: JSONSchemaProps = { type: 'string', pattern: '^(a+)+$' };
    assert.deepEqual(errorsOf(s, 'a'.repeat(5000), 'x'), []);
    assert.equal(errorsOf(s, `${'a'.repeat(5000)}!`, 'x').length, 1);
    assert.match(structural({ type: 'object', properties: { a: { type: 'string', pattern: '(?<=a)b' } } })[0]!, /properties\[a\].pattern: Invalid value: "\(\?<=a\)b": must be a valid regular expression, but isn't: /);
  });
});

describe('pruning', () => {
  const schema: JSONSchemaProps = {
    type: 'object',
    properties: {
      spec: {
        type: 'object',
        properties: {
          a: { type: 'string' },
          free: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
          list: { type: 'array', items: { type: 'object', properties: { k: { type: 'string' } } } },
          embedded: { type: 'object', 'x-kubernetes-embedded-resource': true, properties: { spec: { type: 'object' } } },
          map: { type: 'object', additionalProperties: { type: 'object', properties: { v: { type: 'integer' } } } },
        },
      },
    },
  };
  it('drops what the schema does not declare and reports the paths', () => {
    const obj = {
      apiVersion: 'x/v1',
      kind: 'X',
      metadata: { name: 'n', anything: 1 },
      unknown: true,
      spec: {
        a: 'x',
        b: 'gone',
        free: { anything: { nested: 1 } },
        list: [{ k: 'x', drop: 1 }],
        embedded: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', bogus: 1 }, spec: {}, status: {} },
        map: { one: { v: 1, w: 2 } },
      },
    };
    const pruned: string[] = [];
    prune(obj, schema, true, '', pruned);
    assert.deepEqual(pruned.sort(), ['spec.b', 'spec.embedded.status', 'spec.list[0].drop', 'spec.map.one.w', 'unknown']);
    assert.deepEqual(obj, {
      apiVersion: 'x/v1',
      kind: 'X',
      metadata: { name: 'n', anything: 1 },
      spec: { a: 'x', free: { anything: { nested: 1 } }, list: [{ k: 'x' }], embedded: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: {} }, map: { one: { v: 1 } } },
    });
  });
  it('keeps everything under a root that preserves unknown fields', () => {
    const obj = { spec: { x: 1 }, other: [1] };
    const pruned: string[] = [];
    prune(obj, { type: 'object', 'x-kubernetes-preserve-unknown-fields': true }, true, '', pruned);
    assert.deepEqual(pruned, []);
    assert.deepEqual(obj, { spec: { x: 1 }, other: [1] });
  });
});

describe('defaulting', () => {
  const schema: JSONSchemaProps = {
    type: 'object',
    properties: {
      spec: {
        type: 'object',
        default: {},
        properties: {
          replicas: { type: 'integer', default: 1 },
          strategy: { type: 'object', default: { type: 'Rolling' }, properties: { type: { type: 'string' }, surge: { type: 'integer', default: 25 } } },
          nullable: { type: 'string', nullable: true, default: 'x' },
          notNullable: { type: 'string', default: 'y' },
          ports: { type: 'array', items: { type: 'object', properties: { protocol: { type: 'string', default: 'TCP' } } } },
        },
      },
    },
  };
  it('fills missing fields, recursing into the defaults themselves', () => {
    const obj: Record<string, unknown> = {};
    applyDefaults(obj, schema);
    assert.deepEqual(obj, { spec: { replicas: 1, strategy: { type: 'Rolling', surge: 25 }, nullable: 'x', notNullable: 'y' } });
  });
  it('keeps given values, defaults nulls only where not nullable, and defaults list items', () => {
    const obj: Record<string, unknown> = { spec: { replicas: 3, nullable: null, notNullable: null, ports: [{}, { protocol: 'UDP' }] } };
    applyDefaults(obj, schema);
    assert.deepEqual(obj, { spec: { replicas: 3, strategy: { type: 'Rolling', surge: 25 }, nullable: null, notNullable: 'y', ports: [{ protocol: 'TCP' }, { protocol: 'UDP' }] } });
  });
});

describe('JSONPath of printer columns', () => {
  const o = { spec: { n: 3, list: [{ a: 1 }, { a: 2 }] }, status: { conditions: [{ type: 'Issuing', status: 'False' }, { type: 'Ready', status: 'True' }] }, metadata: { labels: { 'app.x/y': 'v' } } };
  it('follows fields, indices, wildcards, filters and quoted keys', () => {
    assert.deepEqual(findResults(o, '.spec.n'), [3]);
    assert.deepEqual(findResults(o, '.spec.list[1].a'), [2]);
    assert.deepEqual(findResults(o, '.spec.list[*].a'), [1, 2]);
    assert.deepEqual(findResults(o, '.status.conditions[?(@.type == "Ready")].status'), ['True']);
    assert.deepEqual(findResults(o, ".metadata.labels['app.x/y']"), ['v']);
    assert.deepEqual(findResults(o, '.spec.missing'), []);
  });
});
