/**
 * --runtime-config (spec 8, 9.1) as the original parses and applies it:
 * ConfigurationMap syntax, the core group's spellings, the matchers' order,
 * group/version over the matchers and group/version/resource over both,
 * defaults per type, and the original's errors; and the flag through
 * parseArgs (errors before the server starts).
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { addRuntimeConfig, normalizeRuntimeConfig, RuntimeConfig, RuntimeConfigError, type KnownResource } from '../../src/versions/runtime-config.ts';
import { knownResources } from '../../src/registry/catalog/served.ts';
import { OptionsError, parseArgs } from '../../src/server/options.ts';
import { apiGroup } from '../../src/naming/index.ts';

const KNOWN: KnownResource[] = [
  { group: '', version: 'v1', resource: 'pods', defaultEnabled: true },
  { group: 'batch', version: 'v1', resource: 'jobs', defaultEnabled: true },
  { group: 'batch', version: 'v1', resource: 'cronjobs', defaultEnabled: true },
  { group: 'batch', version: 'v1beta1', resource: 'cronjobs', defaultEnabled: true },
  { group: 'example.io', version: 'v1alpha1', resource: 'widgets', defaultEnabled: false },
  { group: 'example.io', version: 'v2beta1', resource: 'gadgets', defaultEnabled: false },
];

function config(flag: string, known: KnownResource[] = KNOWN): RuntimeConfig {
  const m = new Map<string, string>();
  addRuntimeConfig(m, flag);
  return new RuntimeConfig(m, known);
}

function enabled(rc: RuntimeConfig, gv: string, resource: string): boolean {
  const k = KNOWN.find((x) => `${x.group === '' ? '' : x.group + '/'}${x.version}` === gv && x.resource === resource)!;
  return rc.isEnabled(k.group, k.version, k.resource, k.defaultEnabled);
}

function fails(flag: string, message: string): void {
  assert.throws(() => config(flag), (err: unknown) => err instanceof RuntimeConfigError && err.message === message, flag);
}

describe('--runtime-config parsing', () => {
  it('is a ConfigurationMap: pairs split on commas, trimmed, a bare key is ""', () => {
    const m = new Map<string, string>();
    addRuntimeConfig(m, ' batch/v1beta1 = false ,,api/alpha');
    addRuntimeConfig(m, 'batch/v1beta1=true');
    assert.deepEqual([...m], [['batch/v1beta1', 'true'], ['api/alpha', '']]);
  });
  it('spells the core group v1, api/v1, v1/... and api/v1/...; drops api/legacy', () => {
    for (const key of ['v1', 'api/v1', 'v1/pods', 'api/v1/pods']) assert.deepEqual([...normalizeRuntimeConfig(new Map([[key, 'false']]))], [['/v1', 'false']], key);
    assert.deepEqual([...normalizeRuntimeConfig(new Map([['api/legacy', 'false']]))], []);
  });
});

describe('--runtime-config decisions', () => {
  it('defaults: each type its own (alpha and new betas off)', () => {
    const rc = config('');
    assert.equal(enabled(rc, 'batch/v1beta1', 'cronjobs'), true);
    assert.equal(enabled(rc, 'example.io/v1alpha1', 'widgets'), false);
    assert.equal(enabled(rc, 'example.io/v2beta1', 'gadgets'), false);
  });
  it('api/all, api/ga, api/beta, api/alpha apply in that order', () => {
    const rc = config('api/beta=true,api/all=false,api/ga=true');
    assert.equal(enabled(rc, 'batch/v1', 'jobs'), true);
    assert.equal(enabled(rc, 'batch/v1beta1', 'cronjobs'), true);
    assert.equal(enabled(rc, 'example.io/v2beta1', 'gadgets'), true);
    assert.equal(enabled(rc, 'example.io/v1alpha1', 'widgets'), false);
    const alpha = config('api/alpha=true,api/all=false');
    assert.equal(enabled(alpha, 'example.io/v1alpha1', 'widgets'), true, 'api/alpha comes after api/all');
  });
  it('group/version beats the matchers; group/version/resource beats both', () => {
    const rc = config('api/beta=false,batch/v1beta1=true,batch/v1=false,batch/v1/cronjobs=true');
    assert.equal(enabled(rc, 'batch/v1beta1', 'cronjobs'), true);
    assert.equal(enabled(rc, 'batch/v1', 'jobs'), false);
    assert.equal(enabled(rc, 'batch/v1', 'cronjobs'), true);
  });
  it('values of group versions are Go booleans; a bare key enables', () => {
    assert.equal(enabled(config('batch/v1beta1=0'), 'batch/v1beta1', 'cronjobs'), false);
    assert.equal(enabled(config('batch/v1beta1=F'), 'batch/v1beta1', 'cronjobs'), false);
    assert.equal(enabled(config('example.io/v1alpha1'), 'example.io/v1alpha1', 'widgets'), true);
    assert.equal(enabled(config('v1=false'), 'v1', 'pods'), false);
  });
  it('errors with the original\'s words', () => {
    fails('api/all=false', 'invalid key with only api/all=false');
    fails('a/b/c/d=true', 'runtime-config invalid key a/b/c/d');
    fails('foo', 'runtime-config invalid key foo');
    fails('zeta/v1=true,extensions/v1beta1=false', 'unknown api groups extensions,zeta');
    fails('batch/v9=true', 'group version batch/v9 that has not been registered');
    fails('api/beta=yes', 'invalid value api/beta=yes');
    fails('api/beta', 'invalid value api/beta=');
    fails('batch/v1=maybe', 'invalid value of batch/v1: maybe, err: strconv.ParseBool: parsing "maybe": invalid syntax');
    fails('batch/v1/CronJobs=false', 'invalid key batch/v1/CronJobs: group/version/resource and resource is always lowercase plural, not "CronJobs"');
  });
});

describe('--runtime-config through the flags', () => {
  const base = ['--data-dir=/nonexistent-versions-test'];
  it('a bad key stops the start with the message', () => {
    assert.throws(() => parseArgs([...base, '--runtime-config=nothere.example/v1=true']), (err: unknown) => err instanceof OptionsError && err.message.includes('unknown api groups nothere.example'));
    assert.throws(() => parseArgs([...base, '--runtime-config=v1=false']), (err: unknown) => err instanceof OptionsError && /must not disable v1/.test(err.message));
  });
  it('accepts every group version the server serves, and the older ones are on by default', () => {
    const known = knownResources();
    const o = parseArgs([...base, `--runtime-config=${apiGroup('flowcontrol.apiserver')}/v1beta1=false,batch/v1beta1`, '--runtime-config=api/alpha=false']);
    assert.deepEqual([...o.runtimeConfig.keys()], [`${apiGroup('flowcontrol.apiserver')}/v1beta1`, 'batch/v1beta1', 'api/alpha']);
    const rc = new RuntimeConfig(new Map(), known);
    for (const k of known) if (/beta/.test(k.version)) assert.equal(rc.isEnabled(k.group, k.version, k.resource, k.defaultEnabled), true, `${k.group}/${k.version}`);
  });
});
