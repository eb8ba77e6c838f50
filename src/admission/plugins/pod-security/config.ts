/**
 * PodSecurity's configuration: the `PodSecurityConfiguration` kind
 * (pod-security.admission.config.<suffix>, v1 / v1beta1 / v1alpha1: the
 * same fields) with the default policy for namespaces without labels and
 * the exemptions (usernames, namespaces, runtime classes), as the original's
 * admission/api. It comes from the `PodSecurity` entry of the
 * `--admission-control-config-file` AdmissionConfiguration, inline
 * (`configuration`) or in a file (`path`, relative to that file); without
 * one everything is privileged:latest and nothing is exempt.
 *
 * Read once per serving thread when the plugin is built; a bad file stops
 * the server from starting, as the original's plugin initialization does.
 */
import { readFileSync } from 'node:fs';
import { dirname, isAbsolute, resolve } from 'node:path';
import { parse } from 'yaml';
import { names } from '../../../naming/index.ts';
import { isDNS1123Label, isDNS1123Subdomain } from '../../../registry/validation/names.ts';
import { fieldErrors, type FieldError } from '../../../registry/strategy.ts';
import { LEVEL_ERROR, parseLevel, parseVersion, VERSION_ERROR, type Policy } from './api.ts';

export const PLUGIN_NAME = 'PodSecurity';

export interface PodSecurityConfig {
  readonly defaults: Policy;
  readonly exemptions: {
    readonly usernames: ReadonlySet<string>;
    readonly namespaces: ReadonlySet<string>;
    readonly runtimeClasses: ReadonlySet<string>;
  };
}

export class PodSecurityConfigError extends Error {}

const CONFIG_VERSIONS = ['v1', 'v1beta1', 'v1alpha1'];
const DEFAULT_KEYS = ['enforce', 'enforce-version', 'audit', 'audit-version', 'warn', 'warn-version'] as const;

/** The configuration without a file: all privileged:latest, no exemptions. */
export function defaultConfig(): PodSecurityConfig {
  return parsePodSecurityConfiguration({ apiVersion: `${names.podSecurity.configGroups[0]}/v1`, kind: 'PodSecurityConfiguration' });
}

/**
 * Decodes and validates a PodSecurityConfiguration object (already parsed
 * from YAML or JSON). Throws PodSecurityConfigError with every problem.
 */
export function parsePodSecurityConfiguration(raw: unknown): PodSecurityConfig {
  const obj = record(raw, 'configuration');
  const apiVersion = typeof obj['apiVersion'] === 'string' ? obj['apiVersion'] : '';
  const slash = apiVersion.lastIndexOf('/');
  const group = slash < 0 ? '' : apiVersion.slice(0, slash);
  const apiVer = apiVersion.slice(slash + 1);
  if (obj['kind'] !== 'PodSecurityConfiguration' || !names.podSecurity.configGroups.includes(group) || !CONFIG_VERSIONS.includes(apiVer)) {
    throw new PodSecurityConfigError(
      `expected PodSecurityConfiguration in ${names.podSecurity.configGroups[0]}/{${CONFIG_VERSIONS.join(',')}}, got ${JSON.stringify(apiVersion)}, kind ${JSON.stringify(obj['kind'] ?? '')}`,
    );
  }
  const defaultsRaw = obj['defaults'] === undefined || obj['defaults'] === null ? {} : record(obj['defaults'], 'defaults');
  const exemptionsRaw = obj['exemptions'] === undefined || obj['exemptions'] === null ? {} : record(obj['exemptions'], 'exemptions');
  const errs: FieldError[] = [];
  // Defaulting (the original's SetDefaults_PodSecurityDefaults): empty means privileged / latest.
  const d: Record<(typeof DEFAULT_KEYS)[number], string> = { enforce: '', 'enforce-version': '', audit: '', 'audit-version': '', warn: '', 'warn-version': '' };
  for (const k of DEFAULT_KEYS) {
    const v = defaultsRaw[k];
    if (v !== undefined && v !== null && typeof v !== 'string') errs.push(fieldErrors.invalid(`defaults.${k}`, v, 'must be a string'));
    d[k] = typeof v === 'string' && v !== '' ? v : k.endsWith('-version') ? 'latest' : 'privileged';
  }
  const level = (k: 'enforce' | 'audit' | 'warn') => {
    const l = parseLevel(d[k]);
    if (l === undefined) errs.push(fieldErrors.invalid(`defaults.${k}`, d[k], LEVEL_ERROR));
    return l ?? 'restricted';
  };
  const version = (k: 'enforce-version' | 'audit-version' | 'warn-version') => {
    const v = parseVersion(d[k]);
    if (v === undefined) errs.push(fieldErrors.invalid(`defaults.${k}`, d[k], VERSION_ERROR));
    return v ?? parseVersion('latest')!;
  };
  // The original validates enforce, warn, then audit.
  const enforce = { level: level('enforce'), version: version('enforce-version') };
  const warn = { level: level('warn'), version: version('warn-version') };
  const audit = { level: level('audit'), version: version('audit-version') };
  const namespaces = stringSet(exemptionsRaw['namespaces'], 'exemptions.namespaces', errs, (ns) => isDNS1123Label(ns));
  const runtimeClasses = stringSet(exemptionsRaw['runtimeClasses'], 'exemptions.runtimeClasses', errs, (rc) => isDNS1123Subdomain(rc));
  const usernames = stringSet(exemptionsRaw['usernames'], 'exemptions.usernames', errs, (u) => (u === '' ? ['username must not be empty'] : []));
  if (errs.length > 0) {
    const list = errs.map((e) => `${e.field}: ${e.message}`);
    throw new PodSecurityConfigError(list.length === 1 ? list[0]! : `[${list.join(', ')}]`);
  }
  return { defaults: { enforce, audit, warn }, exemptions: { usernames, namespaces, runtimeClasses } };
}

function stringSet(raw: unknown, path: string, errs: FieldError[], check: (s: string) => string[]): ReadonlySet<string> {
  const out = new Set<string>();
  if (raw === undefined || raw === null) return out;
  if (!Array.isArray(raw)) {
    errs.push(fieldErrors.invalid(path, raw, 'must be a list of strings'));
    return out;
  }
  raw.forEach((item, i) => {
    const field = `${path}[${i}]`;
    if (typeof item !== 'string') {
      errs.push(fieldErrors.invalid(field, item, 'must be a string'));
      return;
    }
    const problems = check(item);
    if (problems.length > 0) errs.push(fieldErrors.invalid(field, item, problems.join(', ')));
    else if (out.has(item)) errs.push(fieldErrors.duplicate(field, item));
    else out.add(item);
  });
  return out;
}

function record(v: unknown, what: string): Record<string, unknown> {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) throw new PodSecurityConfigError(`${what}: expected an object`);
  return v as Record<string, unknown>;
}

/**
 * The PodSecurity configuration named by an AdmissionConfiguration file, or
 * the default when there is no file or it has no PodSecurity entry.
 */
export function loadPodSecurityConfig(admissionConfigFile: string | undefined): PodSecurityConfig {
  if (admissionConfigFile === undefined || admissionConfigFile === '') return defaultConfig();
  const doc = readYaml(admissionConfigFile);
  if (doc === null || doc === undefined) return defaultConfig();
  const top = record(doc, admissionConfigFile);
  if (top['kind'] !== 'AdmissionConfiguration') throw new PodSecurityConfigError(`${admissionConfigFile}: expected kind AdmissionConfiguration, got ${JSON.stringify(top['kind'] ?? '')}`);
  const plugins = top['plugins'] ?? [];
  if (!Array.isArray(plugins)) throw new PodSecurityConfigError(`${admissionConfigFile}: plugins must be a list`);
  const entry = plugins.map((p) => record(p, 'plugins[]')).find((p) => p['name'] === PLUGIN_NAME);
  if (entry === undefined) return defaultConfig();
  try {
    if (entry['configuration'] !== undefined && entry['configuration'] !== null) return parsePodSecurityConfiguration(entry['configuration']);
    const path = entry['path'];
    if (typeof path !== 'string' || path === '') return defaultConfig();
    const full = isAbsolute(path) ? path : resolve(dirname(admissionConfigFile), path);
    const inner = readYaml(full);
    return inner === null || inner === undefined ? defaultConfig() : parsePodSecurityConfiguration(inner);
  } catch (e) {
    throw new PodSecurityConfigError(`${PLUGIN_NAME} invalid: ${(e as Error).message}`);
  }
}

function readYaml(file: string): unknown {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    throw new PodSecurityConfigError(`reading ${file}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
  try {
    return parse(text) as unknown;
  } catch (e) {
    throw new PodSecurityConfigError(`${file}: ${(e as Error).message}`);
  }
}

/**
 * The configuration file's problems for PodSecurity, checked with the other
 * flags before the server writes anything (empty when fine, or when the
 * plugin is off).
 */
export function podSecurityOptionProblems(o: { admissionControlConfigFile: string | undefined }, enabled: boolean): string[] {
  if (!enabled) return [];
  try {
    loadPodSecurityConfig(o.admissionControlConfigFile);
    return [];
  } catch (e) {
    const message = (e as Error).message;
    return [message.startsWith(`${PLUGIN_NAME} `) ? message : `${PLUGIN_NAME}: ${message}`];
  }
}
