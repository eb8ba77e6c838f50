/**
 * Field sets of real kinds through our declarations (schema-from-dsl.ts):
 * a Pod and a Deployment (containers by name, ports by containerPort and
 * protocol with the protocol's default, env by name, volumes, atomic
 * tolerations and selectors, finalizers as a set, granular labels), the
 * original's CLI field sets of its Pod and Node test objects, the marker
 * rules of spec 2.5, and the messages for invalid configurations.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { compareValues } from '../../src/apply/compare.ts';
import { fromFieldsV1, toFieldsV1 } from '../../src/apply/fields-v1.ts';
import { schemaFromDsl } from '../../src/apply/schema-from-dsl.ts';
import { DEDUCED } from '../../src/apply/schema.ts';
import { toFieldSet } from '../../src/apply/typed.ts';
import { validate, validationMessage } from '../../src/apply/validate.ts';
import type { Json } from '../../src/apply/value.ts';
import { ANY, f, list, map, namespace, OPAQUE, S, type StructDecl } from '../../src/openapi/schema-dsl.ts';
import { SchemaSet } from '../../src/openapi/schema-set.ts';
import { servedSchemas } from '../../src/openapi/served-schemas.ts';
import { setOf } from './support/paths.ts';

const served = servedSchemas([]);
const kind = (group: string, version: string, k: string) => schemaFromDsl(served.set, served.kindSchema({ group, version, kind: k }));
const POD = kind('', 'v1', 'Pod');
const NODE = kind('', 'v1', 'Node');
const DEPLOYMENT = kind('apps', 'v1', 'Deployment');
const fixture = (name: string): string => readFileSync(new URL(`./fixtures/${name}`, import.meta.url), 'utf8');

const pod: Json = {
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'web', labels: { app: 'web', tier: 'front' }, finalizers: ['a/b', 'c/d'] },
  spec: {
    nodeSelector: { disk: 'ssd' },
    tolerations: [{ key: 'k', operator: 'Exists' }],
    imagePullSecrets: [{ name: 'regcred' }],
    containers: [
      {
        name: 'nginx',
        image: 'nginx:1.25',
        args: ['-g', 'daemon off;'],
        ports: [{ containerPort: 80 }, { containerPort: 53, protocol: 'UDP' }],
        env: [{ name: 'A', value: '1' }, { name: 'B', valueFrom: { secretKeyRef: { name: 's', key: 'k' } } }],
        resources: { requests: { cpu: '100m' } },
        volumeMounts: [{ name: 'data', mountPath: '/data' }],
      },
    ],
    volumes: [{ name: 'data', emptyDir: {} }, { name: 'cfg', configMap: { name: 'cm' } }],
  },
};

describe('field sets of a Pod and a Deployment', () => {
  it('Pod', () => {
    const got = toFieldSet(pod, POD);
    const want = setOf(
      '.apiVersion',
      '.kind',
      '.metadata.name',
      '.metadata.labels.app',
      '.metadata.labels.tier',
      '.metadata.finalizers[="a/b"]',
      '.metadata.finalizers[="c/d"]',
      '.spec.nodeSelector',
      '.spec.tolerations',
      '.spec.imagePullSecrets[name="regcred"]',
      '.spec.containers[name="nginx"]',
      '.spec.containers[name="nginx"].name',
      '.spec.containers[name="nginx"].image',
      '.spec.containers[name="nginx"].args',
      '.spec.containers[name="nginx"].ports[containerPort=80,protocol="TCP"]',
      '.spec.containers[name="nginx"].ports[containerPort=80,protocol="TCP"].containerPort',
      '.spec.containers[name="nginx"].ports[containerPort=53,protocol="UDP"]',
      '.spec.containers[name="nginx"].ports[containerPort=53,protocol="UDP"].containerPort',
      '.spec.containers[name="nginx"].ports[containerPort=53,protocol="UDP"].protocol',
      '.spec.containers[name="nginx"].env[name="A"]',
      '.spec.containers[name="nginx"].env[name="A"].name',
      '.spec.containers[name="nginx"].env[name="A"].value',
      '.spec.containers[name="nginx"].env[name="B"]',
      '.spec.containers[name="nginx"].env[name="B"].name',
      '.spec.containers[name="nginx"].env[name="B"].valueFrom.secretKeyRef',
      '.spec.containers[name="nginx"].resources.requests.cpu',
      '.spec.containers[name="nginx"].volumeMounts[mountPath="/data"]',
      '.spec.containers[name="nginx"].volumeMounts[mountPath="/data"].name',
      '.spec.containers[name="nginx"].volumeMounts[mountPath="/data"].mountPath',
      '.spec.volumes[name="data"]',
      '.spec.volumes[name="data"].name',
      '.spec.volumes[name="data"].emptyDir',
      '.spec.volumes[name="cfg"]',
      '.spec.volumes[name="cfg"].name',
      '.spec.volumes[name="cfg"].configMap.name',
    );
    assert.ok(got.equals(want), `missing:\n${want.difference(got)}\nextra:\n${got.difference(want)}`);
  });

  it('Pod, as FieldsV1', () => {
    const v1 = toFieldsV1(toFieldSet(pod, POD)) as Record<string, Record<string, unknown>>;
    const containers = (v1['f:spec']!['f:containers'] as Record<string, Record<string, unknown>>)['k:{"name":"nginx"}']!;
    assert.deepEqual(Object.keys(containers['f:ports'] as object), ['k:{"containerPort":53,"protocol":"UDP"}', 'k:{"containerPort":80,"protocol":"TCP"}']);
    assert.deepEqual(v1['f:metadata'], { 'f:finalizers': { 'v:"a/b"': {}, 'v:"c/d"': {} }, 'f:labels': { 'f:app': {}, 'f:tier': {} }, 'f:name': {} });
    assert.deepEqual(containers['f:ports'], {
      'k:{"containerPort":53,"protocol":"UDP"}': { '.': {}, 'f:containerPort': {}, 'f:protocol': {} },
      'k:{"containerPort":80,"protocol":"TCP"}': { '.': {}, 'f:containerPort': {} },
    });
  });

  it('Deployment: the selector is atomic, the template granular', () => {
    const deployment: Json = {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'web' },
      spec: {
        replicas: 3,
        selector: { matchLabels: { app: 'web' } },
        strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: '25%' } },
        template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'c', image: 'i' }] } },
      },
    };
    const got = toFieldSet(deployment, DEPLOYMENT);
    const want = setOf(
      '.apiVersion',
      '.kind',
      '.metadata.name',
      '.spec.replicas',
      '.spec.selector',
      '.spec.strategy.type',
      '.spec.strategy.rollingUpdate.maxSurge',
      '.spec.template.metadata.labels.app',
      '.spec.template.spec.containers[name="c"]',
      '.spec.template.spec.containers[name="c"].name',
      '.spec.template.spec.containers[name="c"].image',
    );
    assert.ok(got.equals(want), `missing:\n${want.difference(got)}\nextra:\n${got.difference(want)}`);
  });
});

describe("the original's field sets of its test objects (internal/cli fieldset: Compare({}, object).Added)", () => {
  it('Node: identical', () => {
    const got = compareValues({}, parse(fixture('node.yaml')) as Json, NODE).added;
    assert.ok(got.equals(fromFieldsV1(JSON.parse(fixture('nodeset.json')) as Json)));
  });

  it('Pod: identical but for structs the current API marks atomic', () => {
    // The original's test schema predates `+structType=atomic` on
    // OwnerReference and SecretKeySelector; our declarations follow the
    // current API, where those structs are owned whole.
    const got = compareValues({}, parse(fixture('pod.yaml')) as Json, POD).added;
    const want = fromFieldsV1(JSON.parse(fixture('podset.json')) as Json);
    const uid = '0a9d2b9e-779e-11e7-b422-42010a8001be';
    const inAtomic = setOf(
      ...['apiVersion', 'blockOwnerDeletion', 'controller', 'kind', 'name', 'uid'].map((x) => `.metadata.ownerReferences[uid="${uid}"].${x}`),
      ...['VAR_1', 'VAR_2', 'VAR_3'].flatMap((v) => ['key', 'name'].map((x) => `.spec.containers[name="some-name"].env[name="${v}"].valueFrom.secretKeyRef.${x}`)),
    );
    assert.ok(got.equals(want.difference(inAtomic)), `missing:\n${want.difference(got)}\nextra:\n${got.difference(want)}`);
  });
});

describe('markers (spec 2.5)', () => {
  const t = namespace('io.orch.test.apply', { group: 'test', version: 'v1' });
  const types: StructDecl[] = [
    t.struct('Item', 'An item.', { name: f(S, 'Key.'), value: f(S, 'Value.') }),
    t.struct('AtomicItem', 'An atomic struct.', { name: f(S, 'Key.'), value: f(S, 'Value.') }, { structType: 'atomic' }),
    t.struct('Markers', 'Every marker.', {
      legacyMap: f(list(t.ref('Item')), 'Legacy merge key.', { patchStrategy: 'merge', patchMergeKey: 'name' }),
      legacySet: f(list(S), 'Legacy merge without key.', { patchStrategy: 'merge' }),
      retainKeys: f(list(t.ref('Item')), 'retainKeys alone.', { patchStrategy: 'retainKeys' }),
      plain: f(list(t.ref('Item')), 'No marker.'),
      listMap: f(list(t.ref('Item')), 'listType wins over the legacy marker.', { listType: 'atomic', patchStrategy: 'merge', patchMergeKey: 'name' }),
      set: f(list(S), 'A set.', { listType: 'set' }),
      lists: f(list(list(S)), 'Inner lists have no markers.', { listType: 'set' }),
      granularMap: f(map(S), 'Granular map.'),
      atomicMap: f(map(S), 'Atomic map.', { mapType: 'atomic' }),
      atomicRef: f(t.ref('Item'), 'A granular struct made atomic by the field.', { mapType: 'atomic' }),
      granularRef: f(t.ref('AtomicItem'), 'An atomic struct made granular by the field.', { mapType: 'granular' }),
      atomicStruct: f(t.ref('AtomicItem'), 'Atomic struct.'),
      opaque: f(OPAQUE, 'Undescribed object.'),
      any: f(ANY, 'Any value.'),
    }),
    t.struct('Loose', 'Keeps unknown fields.', { known: f(S, 'Declared.') }),
  ];
  const set = new SchemaSet([...types.slice(0, -1), { ...types[types.length - 1]!, preserveUnknownFields: true }]);
  const markers = schemaFromDsl(set, t.name('Markers'));
  const cases: [string, Json, string[]][] = [
    ['legacy merge key: a map list', { legacyMap: [{ name: 'a', value: 'x' }] }, ['.legacyMap[name="a"]', '.legacyMap[name="a"].name', '.legacyMap[name="a"].value']],
    ['legacy merge without key: a set', { legacySet: ['a', 'b'] }, ['.legacySet[="a"]', '.legacySet[="b"]']],
    ['retainKeys alone: atomic', { retainKeys: [{ name: 'a' }] }, ['.retainKeys']],
    ['no marker: atomic', { plain: [{ name: 'a' }] }, ['.plain']],
    ['listType wins over the legacy marker', { listMap: [{ name: 'a' }] }, ['.listMap']],
    ['set', { set: ['x'] }, ['.set[="x"]']],
    ['lists in a set are not supported: no items owned', { lists: [['x']] }, []],
    ['granular map', { granularMap: { a: '1', b: '2' } }, ['.granularMap.a', '.granularMap.b']],
    ['atomic map', { atomicMap: { a: '1' } }, ['.atomicMap']],
    ['field marker makes a struct atomic', { atomicRef: { name: 'a' } }, ['.atomicRef']],
    ['field marker makes an atomic struct granular', { granularRef: { name: 'a' } }, ['.granularRef.name']],
    ['atomic struct, recursively', { atomicStruct: { name: 'a', value: 'b' } }, ['.atomicStruct']],
    // Undeclared keys are members even with fields below them, like map keys.
    ['undescribed objects: keys are fields, lists atomic', { opaque: { a: { b: 1 }, l: [{ x: 1 }] } }, ['.opaque.a', '.opaque.a.b', '.opaque.l']],
    ['any value', { any: { a: [1] } }, ['.any.a']],
  ];
  for (const [name, value, paths] of cases) {
    it(name, () => {
      const got = toFieldSet(value, markers);
      assert.ok(got.equals(setOf(...paths)), got.toString());
    });
  }

  it('a struct that keeps unknown fields treats them as untyped fields', () => {
    const loose = schemaFromDsl(set, t.name('Loose'));
    assert.ok(toFieldSet({ known: 'a', extra: { b: [1], c: 'd' } }, loose).equals(setOf('.known', '.extra', '.extra.b', '.extra.c')));
    assert.deepEqual(validate({ known: 'a', extra: { b: [1] } }, loose), []);
  });

  it('kinds nobody declared keep everything but metadata untyped', () => {
    const fallback = servedSchemas([
      {
        group: 'example.io',
        version: 'v1',
        kind: 'Widget',
        verbs: ['get'],
        subresources: [],
      } as unknown as Parameters<typeof servedSchemas>[0][number],
    ]);
    const widget = schemaFromDsl(fallback.set, fallback.kindSchema({ group: 'example.io', version: 'v1', kind: 'Widget' }));
    const got = toFieldSet({ apiVersion: 'example.io/v1', kind: 'Widget', metadata: { labels: { a: 'b' } }, spec: { list: [1, 2], m: { k: 'v' } } }, widget);
    assert.ok(got.equals(setOf('.apiVersion', '.kind', '.metadata.labels.a', '.spec', '.spec.list', '.spec.m', '.spec.m.k')), got.toString());
    assert.equal(DEDUCED.list?.atomic, true);
  });
});

describe('invalid configurations (validate.ts)', () => {
  const deployment = (containers: Json, extra: Record<string, Json> = {}): Json => ({
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'web' },
    spec: { template: { spec: { containers } }, ...extra },
  });
  const cases: [string, Json, string][] = [
    [
      'duplicated key',
      deployment([{ name: 'a' }, { name: 'a' }]),
      '.spec.template.spec.containers: duplicate entries for key [name="a"]',
    ],
    [
      'duplicated key once the default is filled in',
      deployment([{ name: 'a', ports: [{ containerPort: 80 }, { containerPort: 80, protocol: 'TCP' }] }]),
      '.spec.template.spec.containers[name="a"].ports: duplicate entries for key [containerPort=80,protocol="TCP"]',
    ],
    [
      'item without any key',
      deployment([{ image: 'x' }]),
      '.spec.template.spec.containers: element 0: associative list with keys has an element that omits all key fields ["name"] (and doesn\'t have default values for any key fields)',
    ],
    ['undeclared field', deployment([{ name: 'a', imagee: 'x' }]), '.spec.template.spec.containers[name="a"].imagee: field not declared in schema'],
    ['number for a string', deployment([{ name: 'a', image: 5 }]), '.spec.template.spec.containers[name="a"].image: expected string, got &value.valueUnstructured{Value:5}'],
    ['string for a number', deployment([], { replicas: 'three' }), '.spec.replicas: expected numeric (int or float), got string'],
    ['null in a set', { apiVersion: 'v1', kind: 'Pod', metadata: { finalizers: [null] } }, '.metadata.finalizers: element 0: associative list without keys has an element that\'s an explicit null'],
  ];
  for (const [name, value, message] of cases) {
    it(name, () => {
      const type = (value as { kind: string }).kind === 'Pod' ? POD : DEPLOYMENT;
      assert.equal(validationMessage(validate(value, type)), message);
    });
  }

  it('several errors are listed', () => {
    const errs = validate(deployment([{ name: 'a', image: 1 }], { replicas: 'x' }), DEPLOYMENT);
    assert.equal(
      validationMessage(errs),
      'errors:\n  .spec.template.spec.containers[name="a"].image: expected string, got &value.valueUnstructured{Value:1}\n  .spec.replicas: expected numeric (int or float), got string',
    );
  });

  it('null is a valid value anywhere; live objects may repeat keys', () => {
    assert.deepEqual(validate(deployment(null, { replicas: null }), DEPLOYMENT), []);
    assert.deepEqual(validate(deployment([{ name: 'a' }, { name: 'a' }]), DEPLOYMENT, { allowDuplicates: true }), []);
  });
});

describe('list items changed in place', () => {
  it('are keyed afresh (item keys are remembered per object, with their values)', () => {
    const obj = { spec: { containers: [{ name: 'a', ports: [{ containerPort: 80 }] }] } } as { spec: { containers: { name: string; ports: { containerPort: number }[] }[] } };
    const before = toFieldSet(obj as unknown as Json, POD);
    assert.ok(before.has(setOf('.spec.containers[name="a"].ports[containerPort=80,protocol="TCP"]').paths()[0]!));
    obj.spec.containers[0]!.name = 'b';
    obj.spec.containers[0]!.ports[0]!.containerPort = 81;
    const after = toFieldSet(obj as unknown as Json, POD);
    assert.ok(after.equals(setOf(
      '.spec.containers[name="b"]',
      '.spec.containers[name="b"].name',
      '.spec.containers[name="b"].ports[containerPort=81,protocol="TCP"]',
      '.spec.containers[name="b"].ports[containerPort=81,protocol="TCP"].containerPort',
    )), after.toString());
  });
});
