/**
 * The admission chain: the original's order whatever the flags' order,
 * mutating before validating, compiled once per type/subresource/operation,
 * a type nobody handles pays nothing, any rejection rejects.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { AdmissionChain } from '../../src/admission/chain.ts';
import type { AdmissionAttributes, AdmissionPlugin, Operation } from '../../src/admission/types.ts';
import type { ResourceType } from '../../src/registry/resource-type.ts';
import { builtinResourceTypes } from '../../src/registry/catalog/index.ts';
import { ResourceRegistry } from '../../src/registry/registry.ts';
import { StatusError } from '../../src/api/status.ts';
import { PLUGIN_FACTORIES, BUILT_PLUGIN_NAMES } from '../../src/admission/plugin-table.ts';
import { KNOWN_ADMISSION_PLUGINS, admissionPluginProblems } from '../../src/admission/plugin-names.ts';

const registry = new ResourceRegistry(builtinResourceTypes, { defaultWatchCacheSize: 100, watchCacheSizes: new Map(), isEnabled: () => true });
const pods = registry.lookup('', 'v1', 'pods')!;
const configmaps = registry.lookup('', 'v1', 'configmaps')!;

function attrs(rt: ResourceType, operation: Operation, subresource = ''): AdmissionAttributes {
  return {
    operation,
    resourceType: rt,
    subresource,
    namespace: 'ns',
    name: 'x',
    object: { apiVersion: 'v1', kind: rt.kind, metadata: { name: 'x', namespace: 'ns' } },
    oldObject: null,
    user: undefined,
    dryRun: false,
    options: undefined,
    warn: () => undefined,
    annotate: () => undefined,
  };
}

test('mutating plugins all run before validating ones, each phase in the given order', async () => {
  const seen: string[] = [];
  const plugin = (name: string, async: boolean): AdmissionPlugin => ({
    name,
    admit: async ? async () => void seen.push(`admit ${name}`) : () => void seen.push(`admit ${name}`),
    validate: () => void seen.push(`validate ${name}`),
  });
  const chain = new AdmissionChain([plugin('A', true), plugin('B', false), plugin('C', true)]);
  const a = attrs(pods, 'CREATE');
  await chain.admit(a);
  await chain.validate(a);
  assert.deepEqual(seen, ['admit A', 'admit B', 'admit C', 'validate A', 'validate B', 'validate C']);
});

test('handles() is asked once per type, subresource and operation, and a type nobody handles has empty phases', async () => {
  const asked: string[] = [];
  let runs = 0;
  const podsOnly: AdmissionPlugin = {
    name: 'PodsOnly',
    handles: (rt, sub, op) => {
      asked.push(`${rt.resource}/${sub}/${op}`);
      return rt.resource === 'pods' && sub === '' && op === 'CREATE';
    },
    validate: () => void runs++,
  };
  const chain = new AdmissionChain([podsOnly]);
  for (let i = 0; i < 5; i++) {
    await chain.validate(attrs(pods, 'CREATE'));
    await chain.validate(attrs(configmaps, 'CREATE'));
    await chain.validate(attrs(pods, 'UPDATE', 'status'));
  }
  assert.equal(runs, 5);
  assert.deepEqual(asked.sort(), ['configmaps//CREATE', 'pods//CREATE', 'pods/status/UPDATE']);
  assert.equal(chain.has('validate', configmaps, '', 'CREATE'), false);
  assert.equal(chain.has('admit', configmaps, '', 'CREATE'), false);
  assert.equal(chain.validate(attrs(configmaps, 'CREATE')), undefined, 'nothing to run: no promise at all');
  assert.equal(chain.has('validate', pods, '', 'CREATE'), true);
  chain.recompile();
  chain.has('validate', pods, '', 'CREATE');
  assert.equal(asked.length, 4, 'recompile() makes the next write ask again');
});

test('a subresource and its parent compile apart for the same operation, and each type object has its own', async () => {
  const asked: string[] = [];
  const statusOnly: AdmissionPlugin = {
    name: 'StatusOnly',
    handles: (rt, sub, op) => {
      asked.push(`${rt.resource}/${sub}/${op}`);
      return sub === 'status';
    },
    validate: () => undefined,
  };
  const chain = new AdmissionChain([statusOnly]);
  assert.equal(chain.has('validate', pods, '', 'UPDATE'), false);
  assert.equal(chain.has('validate', pods, 'status', 'UPDATE'), true);
  assert.equal(chain.has('validate', configmaps, 'status', 'UPDATE'), true);
  assert.equal(chain.has('validate', pods, '', 'UPDATE'), false, 'the parent is not taken for its subresource');
  assert.deepEqual(asked, ['pods//UPDATE', 'pods/status/UPDATE', 'configmaps/status/UPDATE']);
});

test('a rejection stops the chain and rejects the write', async () => {
  const seen: string[] = [];
  const chain = new AdmissionChain([
    { name: 'Deny', validate: () => { throw new StatusError(403, 'Forbidden', 'no'); } },
    { name: 'After', validate: () => void seen.push('after') },
  ]);
  await assert.rejects(async () => chain.validate(attrs(pods, 'CREATE')), (e: unknown) => e instanceof StatusError && e.code === 403);
  assert.deepEqual(seen, []);
});

test('a mutating plugin may replace the object; later plugins see the replacement', async () => {
  const chain = new AdmissionChain([
    { name: 'Replace', admit: (a) => { a.object = { ...a.object!, metadata: { ...a.object!.metadata, labels: { replaced: 'yes' } } }; } },
    { name: 'Check', admit: (a) => assert.equal(a.object?.metadata.labels?.['replaced'], 'yes') },
  ]);
  const a = attrs(pods, 'CREATE');
  await chain.admit(a);
  assert.equal(a.object?.metadata.labels?.['replaced'], 'yes');
});

test('every built plugin is a known name and the table runs them in the original order', () => {
  const known = new Set(KNOWN_ADMISSION_PLUGINS);
  for (const f of PLUGIN_FACTORIES) assert.ok(known.has(f.name), `${f.name} is a known plugin name`);
  assert.equal(new Set(BUILT_PLUGIN_NAMES).size, BUILT_PLUGIN_NAMES.length, 'no plugin is built twice');
  for (const n of BUILT_PLUGIN_NAMES) assert.deepEqual(admissionPluginProblems([n], []), [], `${n} may be enabled`);
});
