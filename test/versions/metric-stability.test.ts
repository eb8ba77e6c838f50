/**
 * Metric stability (spec 9.2 rule 8) as component-base does it: the class
 * first in the help, deprecated metrics marked and hidden from the release
 * after their deprecation unless --show-hidden-metrics-for-version names the
 * previous minor, --disabled-metrics, process metrics unclassed.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Counter, Gauge } from 'prom-client';
import { checkShowHiddenVersion, isHidden, PolicyRegistry, type MetricsPolicy } from '../../src/server/metric-stability.ts';
import { createMetrics } from '../../src/server/metrics.ts';
import { OptionsError, parseArgs } from '../../src/server/options.ts';

const current = { major: 1, minor: 32 };
const policy = (p: Partial<MetricsPolicy> = {}): MetricsPolicy => ({ disabled: new Set(), showHidden: false, current, ...p });
const TABLE = {
  demo_stable_total: { level: 'STABLE' as const },
  demo_old_total: { level: 'ALPHA' as const, deprecatedVersion: '1.32' },
  demo_hidden_total: { level: 'STABLE' as const, deprecatedVersion: '1.31' },
};

async function help(reg: PolicyRegistry, name: string): Promise<string | undefined> {
  const text = await reg.metrics();
  return /# HELP (\S+) (.*)/g.exec(text.split('\n').find((l) => l.startsWith(`# HELP ${name} `)) ?? '')?.[2];
}

function register(reg: PolicyRegistry): void {
  for (const name of [...Object.keys(TABLE), 'demo_unlisted_total']) new Counter({ name, help: `${name} help.`, registers: [reg] });
}

describe('metric stability', () => {
  it('the class leads the help; a deprecated metric says since when', async () => {
    const reg = new PolicyRegistry(policy(), TABLE);
    register(reg);
    assert.equal(await help(reg, 'demo_stable_total'), '[STABLE] demo_stable_total help.');
    assert.equal(await help(reg, 'demo_unlisted_total'), '[ALPHA] demo_unlisted_total help.');
    assert.equal(await help(reg, 'demo_old_total'), '[ALPHA] (Deprecated since 1.32.0) demo_old_total help.');
  });
  it('hidden from the release after its deprecation; shown again with --show-hidden-metrics-for-version', async () => {
    assert.equal(isHidden(current, '1.31'), true);
    assert.equal(isHidden(current, '1.32'), false);
    const hidden = new PolicyRegistry(policy(), TABLE);
    register(hidden);
    assert.equal(hidden.getSingleMetric('demo_hidden_total'), undefined);
    assert.equal(hidden.skipped.get('demo_hidden_total'), 'hidden');
    const shown = new PolicyRegistry(policy({ showHidden: true }), TABLE);
    register(shown);
    assert.equal(await help(shown, 'demo_hidden_total'), '[STABLE] (Deprecated since 1.31.0) demo_hidden_total help.');
  });
  it('--disabled-metrics leaves a metric out, over showing hidden ones', () => {
    const reg = new PolicyRegistry(policy({ disabled: new Set(['demo_stable_total', 'demo_hidden_total']), showHidden: true }), TABLE);
    register(reg);
    assert.equal(reg.getSingleMetric('demo_stable_total'), undefined);
    assert.equal(reg.getSingleMetric('demo_hidden_total'), undefined);
    assert.ok(reg.getSingleMetric('demo_old_total'));
  });
  it('the server\'s metrics: the original\'s classes, process metrics unclassed, disabled ones absent', async () => {
    const m = createMetrics({ policy: policy({ disabled: new Set(['apiserver_registered_watchers']) }) });
    m.markDeprecatedApiRequested({ group: 'batch', version: 'v1beta1', resource: 'cronjobs', subresource: '', removedRelease: '1.25' });
    const text = await m.registry.metrics();
    assert.match(text, /# HELP apiserver_request_total \[STABLE\] Counter of apiserver requests/);
    assert.match(text, /# HELP apiserver_requested_deprecated_apis \[STABLE\] Gauge of deprecated APIs/);
    assert.match(text, /# HELP apiserver_admission_webhook_rejection_count \[ALPHA\] /);
    assert.match(text, /# HELP process_cpu_seconds_total Total user and system CPU/);
    assert.doesNotMatch(text, /apiserver_registered_watchers/);
    assert.match(text, /apiserver_requested_deprecated_apis\{group="batch",version="v1beta1",resource="cronjobs",subresource="",removed_release="1.25"\} 1/);
    // A second registry of the same server's metrics does not stack the class.
    void new Gauge({ name: 'demo_once', help: 'h', registers: [m.registry] });
    assert.match(await m.registry.metrics(), /# HELP demo_once \[ALPHA\] h\n/);
  });
  it('--show-hidden-metrics-for-version takes only the previous minor', () => {
    assert.doesNotThrow(() => checkShowHiddenVersion(current, '1.31'));
    assert.throws(() => checkShowHiddenVersion(current, '1.30'), { message: "--show-hidden-metrics-for-version must be omitted or have the value '1.31'. Only the previous minor version is allowed" });
    assert.equal(parseArgs(['--show-hidden-metrics-for-version=1.31']).showHiddenMetricsForVersion, '1.31');
    assert.throws(() => parseArgs(['--show-hidden-metrics-for-version=2.0']), OptionsError);
    assert.deepEqual(parseArgs(['--disabled-metrics=a_total,b_seconds']).disabledMetrics, ['a_total', 'b_seconds']);
    assert.throws(() => parseArgs(['--disabled-metrics=not a name']), OptionsError);
  });
});
