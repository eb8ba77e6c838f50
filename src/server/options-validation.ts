/**
 * Checks of the options as a whole, after every flag parsed on its own:
 * authorization modes, admission plugin names, durations armed as timers,
 * files named by flags, etcd URLs, log level. They run before the server
 * does anything, so a bad flag never leaves a half-written data dir behind.
 */
import fs from 'node:fs';
import { AuthorizationConfigError, validateAuthorizationModes } from '../authz/mode.ts';
import { AuditConfigError, validateAuditOptions } from '../audit/config.ts';
import { authorizationOptionProblems, plannedModeFactories } from '../authz/build.ts';
import { admissionPluginEnabled, admissionPluginProblems } from '../admission/plugin-names.ts';
import { podSecurityOptionProblems } from '../admission/plugins/pod-security/config.ts';
import { MAX_TIMER_MS } from './long-timer.ts';
import { CONTROLLER_NAMES, unknownControllers } from '../controllers/controller-names.ts';
import { OptionsError, type ServerOptions } from './options.ts';
import { oidcOptionProblems } from '../authn/oidc/config.ts';
import { RuntimeConfig, RuntimeConfigError } from '../versions/runtime-config.ts';
import { knownResources } from '../registry/catalog/served.ts';
import { clusterSigningProblems } from '../certificates/signing-options.ts';

/** Go's rendering of MAX_TIMER_MS, for messages. */
const MAX_TIMER_TEXT = '596h31m23.647s';

/**
 * Durations the server arms as Node timers (setTimeout/setInterval hold at
 * most 2^31-1 ms; a longer delay fires at once, and an interval of 0 spins):
 * each must fit, and an interval must be positive.
 */
function timerProblems(o: ServerOptions): string[] {
  const problems: string[] = [];
  const fits = (flag: string, ms: number, minMs = 0): void => {
    if (ms > MAX_TIMER_MS) problems.push(`invalid value for --${flag}: must be at most ${MAX_TIMER_TEXT}`);
    else if (ms < minMs) problems.push(`invalid value for --${flag}: must be greater than 0`);
  };
  // 0 would time every ordinary request out at once.
  fits('request-timeout', o.requestTimeoutMs, 1);
  fits('etcd-compaction-interval', o.etcdCompactionIntervalMs);
  fits('shutdown-delay-duration', o.shutdownDelayMs);
  fits('livez-grace-period', o.livezGracePeriodMs);
  fits('watch-cache-retention', o.watchCacheRetentionMs);
  fits('watch-bookmark-interval', o.watchBookmarkIntervalMs, 1);
  fits('continue-token-lifetime', o.continueTokenLifetimeMs);
  fits('authentication-token-webhook-cache-ttl', o.tokenWebhook.cacheTtlMs);
  return problems;
}

/**
 * Files named by flags must be readable regular files now, so a typo stops
 * the start before the data dir is created, with the path in the message.
 * (Contents are checked when they are loaded.)
 */
function fileProblems(o: ServerOptions): string[] {
  const problems: string[] = [];
  const check = (flag: string, file: string | undefined): void => {
    if (file === undefined) return;
    try {
      if (!fs.statSync(file).isFile()) problems.push(`--${flag}: ${file} is not a regular file`);
      else fs.accessSync(file, fs.constants.R_OK);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code ?? 'error';
      problems.push(`--${flag}: cannot read ${file} (${code})`);
    }
  };
  check('tls-cert-file', o.tlsCertFile);
  check('tls-private-key-file', o.tlsPrivateKeyFile);
  check('client-ca-file', o.clientCaFile);
  check('token-auth-file', o.tokenAuthFile);
  check('admission-control-config-file', o.admissionControlConfigFile);
  check('authorization-policy-file', o.authorizationPolicyFile);
  check('authorization-webhook-config-file', o.authorizationWebhookConfigFile);
  check('audit-policy-file', o.audit.policyFile);
  check('audit-webhook-config-file', o.audit.webhook.configFile);
  check('service-account-signing-key-file', o.serviceAccountSigningKeyFile);
  for (const f of o.serviceAccountKeyFiles) check('service-account-key-file', f);
  check('requestheader-client-ca-file', o.requestheaderClientCaFile);
  if (o.requestheaderClientCaFile !== undefined && o.requestheaderUsernameHeaders.length === 0) {
    problems.push('--requestheader-username-headers must name at least one header when --requestheader-client-ca-file is set');
  }
  check('oidc-ca-file', o.oidc.caFile);
  check('authentication-token-webhook-config-file', o.tokenWebhook.configFile);
  check('cluster-signing-cert-file', o.clusterSigning.all.certFile);
  check('cluster-signing-key-file', o.clusterSigning.all.keyFile);
  for (const [k, f] of Object.entries(o.clusterSigning.perSigner)) {
    check(`cluster-signing-${k}-cert-file`, f.certFile);
    check(`cluster-signing-${k}-key-file`, f.keyFile);
  }
  if ((o.tlsCertFile === undefined) !== (o.tlsPrivateKeyFile === undefined)) {
    problems.push('--tls-cert-file and --tls-private-key-file must be given together');
  }
  return problems;
}

const LOG_LEVELS = new Set(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']);

/**
 * Every check of the options as a whole, run before the server does
 * anything (no data dir, no port, no store): startServer calls it too, for
 * callers that build options themselves. All problems are reported at once,
 * one per line, as the original aggregates its flag errors.
 */
export function validateOptions(o: ServerOptions): void {
  const problems: string[] = [];
  if (o.storageBackend === 'etcd3' && o.etcdServers.length === 0) problems.push('--etcd-servers must be set with --storage-backend=etcd3');
  try {
    validateAuthorizationModes(o.authorizationMode, plannedModeFactories());
  } catch (err) {
    if (!(err instanceof AuthorizationConfigError)) throw err;
    problems.push(...err.problems);
  }
  problems.push(...authorizationOptionProblems(o));
  try {
    validateAuditOptions(o.audit);
  } catch (err) {
    if (!(err instanceof AuditConfigError)) throw err;
    problems.push(err.message);
  }
  problems.push(...admissionPluginProblems(o.enableAdmissionPlugins, o.disableAdmissionPlugins));
  problems.push(...podSecurityOptionProblems(o, admissionPluginEnabled('PodSecurity', o.enableAdmissionPlugins, o.disableAdmissionPlugins)));
  problems.push(...timerProblems(o));
  if (o.enablePriorityAndFairness && o.maxRequestsInflight + o.maxMutatingRequestsInflight <= 0) {
    // The original's check: the sum is the seats of every priority level.
    problems.push(`invalid configuration: MaxRequestsInFlight=${o.maxRequestsInflight} and MaxMutatingRequestsInFlight=${o.maxMutatingRequestsInflight}; they must add up to something positive`);
  }
  problems.push(...controllerProblems(o));
  problems.push(...fileProblems(o));
  problems.push(...oidcOptionProblems(o.oidc));
  problems.push(...clusterSigningProblems(o.clusterSigning, o.leaderElection));
  for (const url of o.etcdServers) {
    if (!URL.canParse(url)) problems.push(`invalid value ${JSON.stringify(url)} for --etcd-servers: not a URL`);
  }
  try {
    const runtime = new RuntimeConfig(o.runtimeConfig, knownResources());
    // The server keeps its namespaces (health, admission, the namespace controller): core v1 stays on.
    if (!runtime.isEnabled('', 'v1', 'namespaces', true)) problems.push('--runtime-config must not disable v1 (core/v1 namespaces): this server needs them');
  } catch (err) {
    if (!(err instanceof RuntimeConfigError)) throw err;
    problems.push(err.message);
  }
  if (!LOG_LEVELS.has(o.logLevel)) problems.push(`invalid value ${JSON.stringify(o.logLevel)} for --log-level: must be one of ${[...LOG_LEVELS].join(', ')}`);
  if (problems.length > 0) throw new OptionsError(problems.join('\n'));
}

/** --controllers names known controllers. */
function controllerProblems(o: ServerOptions): string[] {
  const out: string[] = [];
  const unknown = unknownControllers(o.controllers);
  if (unknown.length > 0) out.push(`--controllers: unknown controller(s) ${unknown.join(', ')} (known: ${CONTROLLER_NAMES.join(', ')})`);
  return out;
}
