/**
 * Merge markers appear where the original has them, in both spellings and in
 * both documents: they decide how kubectl's client-side apply merges lists
 * (strategic merge by patch merge key) and, later, server-side apply.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { buildOpenApi } from '../../src/openapi/build.ts';
import type { JsonObject } from '../../src/openapi/extensions.ts';
import { fixtureRegistry } from './fixture-catalog.ts';
import { obj, parse, property, schemaByGvk } from './doc-helpers.ts';

const docs = buildOpenApi(fixtureRegistry());
const dialects: [string, JsonObject][] = [
  ['v3', obj(obj(parse(docs.v3ByPath.get('api/v1')!)['components'])['schemas'])],
  ['v2', obj(parse(docs.v2)['definitions'])],
];
const appsV3 = obj(obj(parse(docs.v3ByPath.get('apis/apps/v1')!)['components'])['schemas']);

interface Expected {
  listType?: string;
  listMapKeys?: string[];
  patchMergeKey?: string;
  patchStrategy?: string;
  mapType?: string;
}

function assertMarkers(field: JsonObject, want: Expected, where: string): void {
  const pairs: [keyof Expected, string][] = [
    ['listType', 'list-type'],
    ['listMapKeys', 'list-map-keys'],
    ['patchMergeKey', 'patch-merge-key'],
    ['patchStrategy', 'patch-strategy'],
    ['mapType', 'map-type'],
  ];
  for (const [key, ext] of pairs) {
    for (const spelling of ['kubernetes', 'orch']) {
      assert.deepEqual(field[`x-${spelling}-${ext}`], want[key], `${where}: x-${spelling}-${ext}`);
    }
  }
}

const POD_CASES: [path: string, want: Expected][] = [
  ['spec.containers', { listType: 'map', listMapKeys: ['name'], patchMergeKey: 'name', patchStrategy: 'merge' }],
  ['spec.initContainers', { listType: 'map', listMapKeys: ['name'], patchMergeKey: 'name', patchStrategy: 'merge' }],
  ['spec.containers.ports', { listType: 'map', listMapKeys: ['containerPort', 'protocol'], patchMergeKey: 'containerPort', patchStrategy: 'merge' }],
  ['spec.containers.env', { listType: 'map', listMapKeys: ['name'], patchMergeKey: 'name', patchStrategy: 'merge' }],
  ['spec.containers.volumeMounts', { listType: 'map', listMapKeys: ['mountPath'], patchMergeKey: 'mountPath', patchStrategy: 'merge' }],
  ['spec.containers.command', { listType: 'atomic' }],
  ['spec.volumes', { listType: 'map', listMapKeys: ['name'], patchMergeKey: 'name', patchStrategy: 'merge,retainKeys' }],
  ['spec.tolerations', { listType: 'atomic' }],
  ['spec.nodeSelector', { mapType: 'atomic' }],
  ['spec.topologySpreadConstraints', { listType: 'map', listMapKeys: ['topologyKey', 'whenUnsatisfiable'], patchMergeKey: 'topologyKey', patchStrategy: 'merge' }],
  ['spec.imagePullSecrets', { listType: 'map', listMapKeys: ['name'], patchMergeKey: 'name', patchStrategy: 'merge' }],
  ['metadata.finalizers', { listType: 'set', patchStrategy: 'merge' }],
  ['metadata.ownerReferences', { listType: 'map', listMapKeys: ['uid'], patchMergeKey: 'uid', patchStrategy: 'merge' }],
  ['metadata.managedFields', { listType: 'atomic' }],
  ['status.conditions', { listType: 'map', listMapKeys: ['type'], patchMergeKey: 'type', patchStrategy: 'merge' }],
  ['metadata.labels', {}],
];

describe('merge markers', () => {
  for (const [dialect, schemas] of dialects) {
    const [, pod] = schemaByGvk(schemas, { group: '', version: 'v1', kind: 'Pod' })!;
    for (const [path, want] of POD_CASES) {
      it(`${dialect}: Pod ${path}`, () => assertMarkers(property(schemas, pod, path), want, path));
    }
    it(`${dialect}: Service spec.ports merge by port and protocol`, () => {
      const [, svc] = schemaByGvk(schemas, { group: '', version: 'v1', kind: 'Service' })!;
      assertMarkers(property(schemas, svc, 'spec.ports'), { listType: 'map', listMapKeys: ['port', 'protocol'], patchMergeKey: 'port', patchStrategy: 'merge' }, 'spec.ports');
    });
    it(`${dialect}: LabelSelector and LocalObjectReference are atomic structs`, () => {
      for (const name of ['io.orch.apimachinery.pkg.apis.meta.v1.LabelSelector', 'io.orch.api.core.v1.LocalObjectReference']) {
        assert.equal(obj(schemas[name])['x-kubernetes-map-type'], 'atomic', name);
        assert.equal(obj(schemas[name])['x-orch-map-type'], 'atomic', name);
      }
    });
  }

  it('v3: Deployment spec.strategy keeps only the keys of the chosen type (retainKeys)', () => {
    const [, deploy] = schemaByGvk(appsV3, { group: 'apps', version: 'v1', kind: 'Deployment' })!;
    assertMarkers(property(appsV3, deploy, 'spec.strategy'), { patchStrategy: 'retainKeys' }, 'spec.strategy');
  });

  it('v3: a described reference is wrapped in allOf so its description survives', () => {
    const [, pod] = schemaByGvk(dialects[0]![1], { group: '', version: 'v1', kind: 'Pod' })!;
    const spec = obj(obj(pod['properties'])['spec']);
    assert.deepEqual(spec['allOf'], [{ $ref: '#/components/schemas/io.orch.api.core.v1.PodSpec' }]);
    assert.equal(typeof spec['description'], 'string');
  });

  it('v3: required fields and enums come through', () => {
    const schemas = dialects[0]![1];
    const container = obj(schemas['io.orch.api.core.v1.Container']);
    assert.deepEqual(container['required'], ['name']);
    assert.deepEqual(obj(obj(container['properties'])['imagePullPolicy'])['enum'], ['Always', 'Never', 'IfNotPresent']);
  });
});
