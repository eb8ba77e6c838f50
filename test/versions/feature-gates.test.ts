/**
 * --feature-gates (spec 3.4, 7 rule 4, 9.2 rule 7): the life cycle (alpha
 * off, beta on, GA locked), AllAlpha/AllBeta, the original's errors for
 * malformed pairs, bad booleans, unknown or removed gates and locked ones;
 * the warnings for GA gates; --help lists the settable gates.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { addFeatureGates, FEATURE_GATES, FeatureGateError, FeatureGates, featureGatesHelp } from '../../src/versions/feature-gates.ts';
import { OptionsError, parseArgs, usage } from '../../src/server/options.ts';

function gates(flag: string): FeatureGates {
  const m = new Map<string, boolean>();
  addFeatureGates(m, flag);
  return new FeatureGates(m);
}

describe('feature gates', () => {
  it('defaults: alpha off, beta on, GA on', () => {
    const g = new FeatureGates();
    assert.equal(g.enabled('APIServerTracing'), false);
    assert.equal(g.enabled('APIListChunking'), true);
    assert.equal(g.enabled('ServerSideApply'), true);
    for (const [name, spec] of Object.entries(FEATURE_GATES)) {
      if (name === 'AllAlpha' || name === 'AllBeta') continue;
      assert.equal(spec.default, spec.stage !== 'ALPHA', name);
      if (spec.stage === 'GA') assert.equal(spec.lockToDefault, true, name);
    }
  });
  it('alpha and beta gates may be set; AllAlpha/AllBeta fill in the rest of their stage', () => {
    const g = gates('APIServerTracing=true,APIListChunking=false');
    assert.equal(g.enabled('APIServerTracing'), true);
    assert.equal(g.enabled('APIListChunking'), false);
    const all = gates('AllAlpha=true,KMSv2=false,AllBeta=false');
    assert.equal(all.enabled('APIServerTracing'), true);
    assert.equal(all.enabled('KMSv2'), false);
    assert.equal(all.enabled('OpenAPIV3'), false);
    assert.equal(all.enabled('ServerSideApply'), true, 'GA gates are not beta');
  });
  it('a GA gate is locked: its default warns, anything else fails', () => {
    assert.deepEqual(gates('ServerSideApply=true').warnings, ['Setting GA feature gate ServerSideApply=true. It will be removed in a future release.']);
    assert.throws(() => gates('ServerSideApply=false'), (e: unknown) => e instanceof FeatureGateError && e.message === 'cannot set feature gate ServerSideApply to false, feature is locked to true');
  });
  it('unknown or removed gates, malformed pairs and bad booleans fail with the original\'s words', () => {
    assert.throws(() => gates('NoSuchGate=true'), { message: 'unrecognized feature gate: NoSuchGate' });
    // Removed after its GA deprecation window (gone from the original's table long before 1.25).
    assert.throws(() => gates('PodPriority=true'), { message: 'unrecognized feature gate: PodPriority' });
    assert.throws(() => gates('APIListChunking'), { message: 'malformed pair, expect string=bool' });
    assert.throws(() => gates('APIListChunking=yes'), { message: 'invalid value of APIListChunking: yes, err: strconv.ParseBool: parsing "yes": invalid syntax' });
    assert.equal(gates(' APIListChunking = 0 ').enabled('APIListChunking'), false, 'trimmed; Go booleans');
  });
  it('through the flags: pflag\'s wrapping, repeated flags merge, listed in --help', () => {
    assert.throws(
      () => parseArgs(['--feature-gates=ServerSideApply=false']),
      (e: unknown) => e instanceof OptionsError && e.message === 'invalid argument "ServerSideApply=false" for "--feature-gates" flag: cannot set feature gate ServerSideApply to false, feature is locked to true',
    );
    const o = parseArgs(['--feature-gates=APIListChunking=false', '--feature-gates=OpenAPIV3=false']);
    assert.deepEqual([...o.featureGates], [['APIListChunking', false], ['OpenAPIV3', false]]);
    const help = usage();
    assert.ok(help.includes('APIListChunking=true|false (BETA - default=true)'));
    assert.ok(help.includes('APIServerTracing=true|false (ALPHA - default=false)'));
    assert.ok(!featureGatesHelp().includes('ServerSideApply'), 'GA gates are not offered');
  });
});
