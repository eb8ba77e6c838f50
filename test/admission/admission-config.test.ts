/**
 * --admission-control-config-file: an AdmissionConfiguration gives a plugin
 * its configuration inline or through a path relative to the file; a broken
 * or foreign file stops the start with a message naming it.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { names } from '../../src/naming/index.ts';
import { admissionPluginConfig } from '../../src/admission/admission-config.ts';

const API_VERSION = `${names.admissionNames.admissionConfigGroups[0]}/v1`;

test('admission configuration: inline, by relative path, absent, and refused files', async () => {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'admission-config-'));
  try {
    await fs.writeFile(path.join(dir, 'erl.yaml'), 'kind: Configuration\nlimits:\n- type: Server\n  qps: 5\n  burst: 10\n');
    const file = path.join(dir, 'admission.yaml');
    await fs.writeFile(
      file,
      [`apiVersion: ${API_VERSION}`, 'kind: AdmissionConfiguration', 'plugins:', '- name: EventRateLimit', '  path: erl.yaml', '- name: PodNodeSelector', '  configuration:', '    podNodeSelectorPluginConfig: {clusterDefaultNodeSelector: "a=b"}'].join('\n'),
    );
    assert.deepEqual(admissionPluginConfig(file, 'EventRateLimit'), { kind: 'Configuration', limits: [{ type: 'Server', qps: 5, burst: 10 }] });
    assert.deepEqual(admissionPluginConfig(file, 'PodNodeSelector'), { podNodeSelectorPluginConfig: { clusterDefaultNodeSelector: 'a=b' } });
    assert.equal(admissionPluginConfig(file, 'NodeRestriction'), undefined);
    assert.equal(admissionPluginConfig(undefined, 'EventRateLimit'), undefined);

    const foreign = path.join(dir, 'foreign.yaml');
    await fs.writeFile(foreign, 'apiVersion: v1\nkind: ConfigMap\n');
    assert.throws(() => admissionPluginConfig(foreign, 'EventRateLimit'), /must be kind AdmissionConfiguration/);
    const broken = path.join(dir, 'broken.yaml');
    await fs.writeFile(broken, 'plugins: [unclosed\n');
    assert.throws(() => admissionPluginConfig(broken, 'EventRateLimit'), /unable to read admission control configuration from ".*broken.yaml"/);
    assert.throws(() => admissionPluginConfig(path.join(dir, 'missing.yaml'), 'EventRateLimit'), /unable to read admission control configuration/);
    const dangling = path.join(dir, 'dangling.yaml');
    await fs.writeFile(dangling, `apiVersion: ${API_VERSION}\nkind: AdmissionConfiguration\nplugins:\n- name: EventRateLimit\n  path: nowhere.yaml\n`);
    assert.throws(() => admissionPluginConfig(dangling, 'EventRateLimit'), /unable to read EventRateLimit configuration from ".*nowhere.yaml"/);
  } finally {
    await fs.rm(dir, { recursive: true, force: true });
  }
});
