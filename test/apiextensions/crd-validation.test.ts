/**
 * The definition's own validation and defaults (after the original's
 * apiextensions validation_test.go and v1beta1 conversion tests): names,
 * group, scope, versions, subresources, printer columns, conversion; v1
 * defaults (singular, listKind, conversion None); v1beta1 to v1 and back.
 */
import '../support/kubernetes-flavor.ts';
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { validateCrd } from '../../src/apiextensions/crd-validation.ts';
import { crdV1beta1ToV1, crdV1ToV1beta1, defaultCrdV1 } from '../../src/apiextensions/crd-types.ts';
import type { KObject } from '../../src/registry/object.ts';

const schema = { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object' } } } };

function crd(spec: Record<string, unknown>, name = 'foos.example.com'): KObject {
  return { apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name }, spec };
}

const good = {
  group: 'example.com',
  scope: 'Namespaced',
  names: { plural: 'foos', singular: 'foo', kind: 'Foo', listKind: 'FooList', shortNames: ['fo'], categories: ['all'] },
  versions: [{ name: 'v1', served: true, storage: true, schema }],
};

const messages = (o: KObject): string[] => validateCrd(o).map((e) => `${e.field}: ${e.message}`);

describe('CRD validation', () => {
  it('accepts a valid definition', () => {
    assert.deepEqual(messages(crd(good)), []);
  });

  it('checks the name, group and scope', () => {
    assert.deepEqual(messages(crd(good, 'bars.example.com')), ['metadata.name: Invalid value: "bars.example.com": must be spec.names.plural+"."+spec.group']);
    assert.deepEqual(messages(crd({ ...good, group: 'example' }, 'foos.example')), ['spec.group: Invalid value: "example": should be a domain with at least one dot']);
    assert.deepEqual(messages(crd({ ...good, scope: 'Global' })), ['spec.scope: Unsupported value: "Global": supported values: "Cluster", "Namespaced"']);
  });

  it('checks the names', () => {
    assert.deepEqual(messages(crd({ ...good, names: { ...good.names, kind: 'Foo', listKind: 'Foo' } })), ['spec.names.listKind: Invalid value: "Foo": kind and listKind may not be the same or listKind']);
    assert.deepEqual(messages(crd({ ...good, names: { ...good.names, kind: '' } })), ['spec.names.kind: Required value']);
    assert.match(messages(crd({ ...good, names: { ...good.names, shortNames: ['Not_OK'] } }))[0]!, /^spec.names.shortNames\[0\]: Invalid value: "Not_OK": a lowercase RFC 1123 label must consist of/);
  });

  it('wants exactly one storage version and one served', () => {
    const two = [{ name: 'v1', served: true, storage: true, schema }, { name: 'v2', served: false, storage: true, schema }];
    assert.ok(messages(crd({ ...good, versions: two })).some((m) => m.startsWith('spec.versions: Invalid value: ') && m.endsWith('must have exactly one version marked as storage version')));
    const none = [{ name: 'v1', served: false, storage: true, schema }];
    assert.ok(messages(crd({ ...good, versions: none })).some((m) => m.endsWith('must have at least one version marked as served')));
    assert.deepEqual(messages(crd({ ...good, versions: [{ name: 'v1', served: true, storage: true }] })), ['spec.versions[0].schema.openAPIV3Schema: Required value: schemas are required']);
  });

  it('checks subresources, printer columns and conversion', () => {
    const v = { name: 'v1', served: true, storage: true, schema, subresources: { scale: { specReplicasPath: '.status.x', statusReplicasPath: '' } }, additionalPrinterColumns: [{ name: 'A', type: 'date-ish', jsonPath: 'spec.a' }] };
    assert.deepEqual(messages(crd({ ...good, versions: [v] })), [
      'spec.versions[0].subresources.scale.specReplicasPath: Invalid value: ".status.x": should be a json path under .spec',
      'spec.versions[0].subresources.scale.statusReplicasPath: Required value',
      'spec.versions[0].additionalPrinterColumns[0].type: Unsupported value: "date-ish": supported values: "integer", "number", "string", "boolean", "date"',
      'spec.versions[0].additionalPrinterColumns[0].jsonPath: Invalid value: "spec.a": must be a simple json path starting with .',
    ]);
    assert.deepEqual(messages(crd({ ...good, conversion: { strategy: 'Webhook', webhook: { conversionReviewVersions: ['v1'], clientConfig: { url: 'http://x/convert' } } } })), [
      "spec.conversion.webhook.clientConfig.url: Invalid value: \"http://x/convert\": 'https' is the only allowed URL scheme",
    ]);
    assert.deepEqual(messages(crd({ ...good, preserveUnknownFields: true })), [
      'spec.preserveUnknownFields: Invalid value: true: cannot set to true, set x-kubernetes-preserve-unknown-fields to true in spec.versions[*].schema instead',
    ]);
  });
});

describe('CRD defaults and v1beta1', () => {
  it('defaults singular, listKind and conversion in v1', () => {
    const o = crd({ group: 'example.com', scope: 'Cluster', names: { plural: 'foos', kind: 'Foo' }, versions: [] });
    defaultCrdV1(o);
    const spec = o['spec'] as { names: Record<string, string>; conversion: unknown };
    assert.deepEqual([spec.names['singular'], spec.names['listKind'], spec.conversion], ['foo', 'FooList', { strategy: 'None' }]);
  });

  it('moves the top-level version fields under versions and back', () => {
    const beta: KObject = {
      apiVersion: 'apiextensions.k8s.io/v1beta1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'foos.example.com' },
      spec: {
        group: 'example.com',
        version: 'v1',
        names: { plural: 'foos', kind: 'Foo' },
        validation: schema,
        subresources: { status: {} },
        additionalPrinterColumns: [{ name: 'A', type: 'string', JSONPath: '.spec.a' }],
        conversion: { strategy: 'Webhook', webhookClientConfig: { url: 'https://x/c' }, conversionReviewVersions: ['v1beta1'] },
      },
    };
    const v1 = crdV1beta1ToV1(beta);
    assert.equal(v1.apiVersion, 'apiextensions.k8s.io/v1');
    assert.deepEqual(v1['spec'], {
      group: 'example.com',
      names: { plural: 'foos', kind: 'Foo' },
      scope: 'Namespaced',
      versions: [{ name: 'v1', served: true, storage: true, schema, subresources: { status: {} }, additionalPrinterColumns: [{ name: 'A', type: 'string', jsonPath: '.spec.a' }] }],
      conversion: { strategy: 'Webhook', webhook: { clientConfig: { url: 'https://x/c' }, conversionReviewVersions: ['v1beta1'] } },
    });
    assert.deepEqual(crdV1beta1ToV1(v1)['spec'], v1['spec'], 'idempotent on a v1 shape');
    const back = crdV1ToV1beta1(v1);
    const spec = back['spec'] as Record<string, unknown>;
    assert.equal(spec['version'], 'v1');
    assert.deepEqual(spec['conversion'], { strategy: 'Webhook', webhookClientConfig: { url: 'https://x/c' }, conversionReviewVersions: ['v1beta1'] });
    assert.equal((spec['versions'] as Array<{ additionalPrinterColumns: Array<{ JSONPath: string }> }>)[0]!.additionalPrinterColumns[0]!.JSONPath, '.spec.a');
  });
});
