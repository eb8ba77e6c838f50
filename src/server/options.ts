/**
 * Command-line flags, spelled and defaulted as the original's
 * (`--secure-port=6443`, `--request-timeout=1m0s`, ...), plus this server's
 * own (`--uws-port`, `--data-dir`, `--shards`). Unknown flags and bad values
 * stop the start with a clear message.
 */
import os from 'node:os';
import { API_FLAVORS, DEFAULT_API_FLAVOR, isApiFlavor, type ApiFlavor } from '../naming/flavor.ts';
import { validateOptions } from './options-validation.ts';
import { DEFAULT_LIST_RESULT_CACHE } from '../../shards/list-result-cache.ts';
import { LIST_STREAM_MIN_BYTES } from '../../shards/list-pieces.ts';
import {
  DEFAULT_SERVICE_CLUSTER_IP_RANGE,
  DEFAULT_SERVICE_NODE_PORT_RANGE,
  parseServiceClusterIPRanges,
  parseServiceNodePortRange,
} from '../registry/service-allocation/config.ts';
import { defaultOidcOptions, OIDC_SIGNING_ALGS, parseRequiredClaim, type OidcOptions } from '../authn/oidc/config.ts';
import { AUDIT_FLAGS, AuditConfigError, defaultAuditOptions, type AuditOptions } from '../audit/config.ts';
import { addRuntimeConfig } from '../versions/runtime-config.ts';
import { checkDisabledMetrics, checkShowHiddenVersion } from './metric-stability.ts';
import { CURRENT_RELEASE } from './metrics.ts';
import { addFeatureGates, FeatureGateError, FeatureGates, featureGatesHelp } from '../versions/feature-gates.ts';
import {
  defaultClusterSigningOptions,
  defaultLeaderElectionOptions,
  SIGNER_FLAGS,
  type ClusterSigningOptions,
  type LeaderElectionOptions,
  type SignerFlag,
} from '../certificates/signing-options.ts';
import { defaultTokenWebhookOptions, isTokenWebhookVersion, TOKEN_WEBHOOK_VERSIONS, type TokenWebhookOptions } from '../authn/webhook/config.ts';

export interface ServerOptions {
  securePort: number;
  bindAddress: string;
  uwsPort: number;
  dataDir: string;
  /** Whose names the API speaks (`--api-flavor`); must match the process's fixed naming table. */
  apiFlavor: ApiFlavor;
  storageBackend: 'embedded' | 'etcd3';
  /** Cut a damaged embedded WAL at the damage instead of refusing to start (drops what follows; logged). */
  embeddedWalRepair: boolean;
  /** EncryptionConfiguration file: encryption at rest (src/storage/encryption); absent: values stored as they are. */
  encryptionProviderConfig: string | undefined;
  etcdServers: string[];
  etcdPrefix: string;
  etcdCompactionIntervalMs: number;
  shards: number;
  /**
   * Threads serving requests (`--frontend-threads`): the main thread and N-1
   * front-end workers on the same ports (src/server/frontend-threads.ts);
   * 1 serves from the main thread alone.
   */
  frontendThreads: number;
  /**
   * How many of the serving threads listen on the uWS port (`--uws-threads`),
   * the main thread first; at most frontendThreads. The secure port is served
   * by all of them where it can be shared.
   */
  uwsThreads: number;
  watchCache: boolean;
  defaultWatchCacheSize: number;
  watchCacheSizes: Map<string, number>;
  clientCaFile: string | undefined;
  tokenAuthFile: string | undefined;
  anonymousAuth: boolean;
  authorizationMode: string[];
  /** `--authorization-policy-file`: the ABAC policy (one JSON per line). */
  authorizationPolicyFile: string | undefined;
  /** `--authorization-webhook-config-file`: kubeconfig of the authorization webhook. */
  authorizationWebhookConfigFile: string | undefined;
  /** `--authorization-webhook-version`: v1beta1 (default) or v1. */
  authorizationWebhookVersion: string;
  /** `--authorization-webhook-cache-authorized-ttl` (5m0s). */
  authorizationWebhookCacheAuthorizedTtlMs: number;
  /** `--authorization-webhook-cache-unauthorized-ttl` (30s). */
  authorizationWebhookCacheUnauthorizedTtlMs: number;
  tlsCertFile: string | undefined;
  tlsPrivateKeyFile: string | undefined;
  serviceAccountKeyFiles: string[];
  serviceAccountSigningKeyFile: string | undefined;
  /** `--service-account-issuer` (repeatable): the first signs, all are accepted; none = the flavor's default. */
  serviceAccountIssuers: string[];
  /** `--service-account-max-token-expiration`, seconds (0: no cap). */
  serviceAccountMaxTokenExpirationSeconds: number;
  /** `--service-account-extend-token-expiration`: pod-bound tokens asked for 3607 s live a year, warning after the request. */
  serviceAccountExtendTokenExpiration: boolean;
  /** `--service-account-lookup`: legacy tokens' secret and service account must still exist. */
  serviceAccountLookup: boolean;
  /** `--api-audiences` (none = the issuers). */
  apiAudiences: string[];
  /** `--service-account-jwks-uri` for the discovery document (none = https://<this server>/openid/v1/jwks). */
  serviceAccountJwksUri: string | undefined;
  maxRequestsInflight: number;
  maxMutatingRequestsInflight: number;
  /** `--enable-priority-and-fairness` (default true): API Priority and Fairness in place of max in-flight. */
  enablePriorityAndFairness: boolean;
  requestTimeoutMs: number;
  minRequestTimeoutSeconds: number;
  http2MaxStreamsPerConnection: number;
  /** `--http2-engine`: which HTTP/2 implementation serves the secure port's h2 connections (src/frontends/h2/ for 'js'). */
  http2Engine: 'nghttp2' | 'js';
  /** Secure port: a connection with nothing in flight is closed after this (the original's fixed 90 s). */
  httpIdleTimeoutMs: number;
  /** Secure port: TLS handshake, first request head, HTTP/2 SETTINGS must come within this (the original's fixed 32 s). */
  httpReadHeaderTimeoutMs: number;
  shutdownDelayMs: number;
  /** `--event-ttl`: events are removed this long after their last write (default 1h0m0s; 0 = never). */
  eventTtlMs: number;
  /** `--profiling` (default true, as the original): `/debug/pprof/profile` and `/debug/pprof/heap` (profiling.ts). */
  profiling: boolean;
  /** `--identity-lease-duration-seconds` (3600): lifetime of each server's identity Lease without renewal. */
  identityLeaseDurationSeconds: number;
  /** `--identity-lease-renew-interval-seconds` (10). */
  identityLeaseRenewIntervalSeconds: number;
  /** `--endpoint-reconciler-type`: lease (default; endpoints from the identity leases), master-count (this server only), none. */
  endpointReconcilerType: 'lease' | 'master-count' | 'none';
  /** `--runtime-config` as given (a ConfigurationMap: key -> value, `""` for a bare key); checked in validateOptions. */
  runtimeConfig: Map<string, string>;
  /** `--disabled-metrics`: metrics left unregistered. */
  disabledMetrics: string[];
  /** `--show-hidden-metrics-for-version`: the previous minor release, or '' (hidden metrics stay hidden). */
  showHiddenMetricsForVersion: string;
  /** `--feature-gates` as set (gate -> value); checked when set (src/versions/feature-gates.ts). */
  featureGates: Map<string, boolean>;
  /** `--shutdown-send-retry-after`: after the delay, new requests get 429 + Retry-After until in-flight ones drain (else the listeners close). */
  shutdownSendRetryAfter: boolean;
  /** `--livez-grace-period`: boot-sequence checks count as live for this long after start. */
  livezGracePeriodMs: number;
  /** `--goaway-chance`: probability (0-0.02) that an HTTP/2 request's response is followed by GOAWAY. */
  goawayChance: number;
  /** `--max-connection-bytes-per-sec`: output rate of each long-running response (0: unthrottled). */
  maxConnectionBytesPerSec: number;
  enableAdmissionPlugins: string[];
  disableAdmissionPlugins: string[];
  /** `--default-not-ready-toleration-seconds` (DefaultTolerationSeconds; default 300). */
  defaultNotReadyTolerationSeconds: number;
  /** `--default-unreachable-toleration-seconds` (DefaultTolerationSeconds; default 300). */
  defaultUnreachableTolerationSeconds: number;
  /** `--admission-control-config-file`: the AdmissionConfiguration file (per-plugin configuration). */
  admissionControlConfigFile: string | undefined;
  logLevel: string;
  /** Extra SANs for the generated serving certificate. */
  tlsSanHosts: string[];
  /** How long watch caches keep events (spec: 5 minutes by default). */
  watchCacheRetentionMs: number;
  /** Bytes of large list answers each shard keeps to share between clients (0: none). */
  listCacheBytes: number;
  /** LIST answers with at least this many item bytes go out in pieces as the shard copies them; 0: never. */
  listStreamBytes: number;
  /** Interval of watch bookmarks for watchers that allow them. */
  watchBookmarkIntervalMs: number;
  /** Lifetime of list continue tokens (spec: 5 minutes by default). */
  continueTokenLifetimeMs: number;
  /** Bytes a watch may have buffered for a slow client before it is dropped. */
  watchMaxBufferedBytes: number;
  /** `--service-cluster-ip-range`: one CIDR or a dual-stack pair, checked. */
  serviceClusterIPRange: string;
  /** `--service-node-port-range`, checked. */
  serviceNodePortRange: string;
  /** How often allocations are reconciled with the Services that exist (0: only at start). */
  serviceAllocationRepairIntervalMs: number;
  /** Bytes all slow watch clients together may hold before the one holding the most is dropped. */
  watchMaxTotalBufferedBytes: number;
  /** `--enable-bootstrap-token-auth` (default false). */
  enableBootstrapTokenAuth: boolean;
  /** `--requestheader-client-ca-file`: turns the authenticating proxy on. */
  requestheaderClientCaFile: string | undefined;
  /** `--requestheader-allowed-names` (empty = any common name). */
  requestheaderAllowedNames: string[];
  /** `--requestheader-username-headers`. */
  requestheaderUsernameHeaders: string[];
  /** `--requestheader-group-headers`. */
  requestheaderGroupHeaders: string[];
  /** `--requestheader-extra-headers-prefix`. */
  requestheaderExtraHeadersPrefix: string[];
  /** The --oidc-* flags (src/authn/oidc/config.ts). */
  oidc: OidcOptions;
  /** The --authentication-token-webhook-* flags (src/authn/webhook/config.ts). */
  tokenWebhook: TokenWebhookOptions;
  /** `--controllers`: the in-server controllers to run (`*` the default set, `name`, `-name`), as the controller manager's flag. */
  controllers: string[];
  /** `--root-ca-file`: the CA bundle published in every namespace and in legacy token secrets (default: the data dir's CA). */
  rootCaFile: string | undefined;
  /** The --audit-* flags (src/audit/config.ts). */
  audit: AuditOptions;
  /** The --cluster-signing-* flags (src/certificates/signing-options.ts). */
  clusterSigning: ClusterSigningOptions;
  /** The --leader-elect* flags: the controllers that run once per cluster. */
  leaderElection: LeaderElectionOptions;
}

export class OptionsError extends Error {}

export { validateOptions };

/** Parses Go durations as the original prints them: `1m0s`, `30s`, `5m`, `1h`, `250ms`. */
export function parseDuration(text: string): number {
  const units: Record<string, number> = { h: 3_600_000, m: 60_000, s: 1000, ms: 1, us: 0.001, µs: 0.001, ns: 0.000001 };
  if (text === '0') return 0;
  const re = /([0-9]+(?:\.[0-9]+)?)(ms|us|µs|ns|h|m|s)/gy;
  let total = 0;
  let matched = 0;
  for (let m = re.exec(text); m !== null; m = re.exec(text)) {
    total += Number(m[1]) * units[m[2]!]!;
    matched = re.lastIndex;
  }
  if (matched !== text.length || text === '') throw new OptionsError(`invalid duration ${JSON.stringify(text)}`);
  return total;
}

type Setter = (o: ServerOptions, value: string) => void;

function int(name: string, min: number, max: number): (v: string) => number {
  return (v) => {
    if (!/^-?[0-9]+$/.test(v)) throw new OptionsError(`invalid value ${JSON.stringify(v)} for --${name}: must be an integer`);
    const n = Number(v);
    if (n < min || n > max) throw new OptionsError(`invalid value ${v} for --${name}: must be between ${min} and ${max}`);
    return n;
  };
}

function bool(name: string): (v: string) => boolean {
  return (v) => {
    if (v === 'true' || v === '') return true;
    if (v === 'false') return false;
    throw new OptionsError(`invalid value ${JSON.stringify(v)} for --${name}: must be true or false`);
  };
}

function positiveDuration(name: string, v: string): number {
  const ms = parseDuration(v);
  if (!(ms >= 1)) throw new OptionsError(`invalid value ${JSON.stringify(v)} for --${name}: must be at least 1ms`);
  return ms;
}

/** The original's bound: more than 2% of requests ending their connection would thrash clients. */
function goawayChance(v: string): number {
  const n = Number(v);
  if (v.trim() === '' || !Number.isFinite(n)) throw new OptionsError(`invalid value ${JSON.stringify(v)} for --goaway-chance: must be a number`);
  if (n < 0 || n > 0.02) throw new OptionsError('--goaway-chance can not be less than 0 or greater than 0.02');
  return n;
}

const list = (v: string): string[] => v.split(',').map((s) => s.trim()).filter((s) => s !== '');

const FLAGS: Record<string, { set: Setter; boolean?: boolean; help: string }> = {
  'secure-port': { set: (o, v) => (o.securePort = int('secure-port', 1, 65535)(v)), help: 'HTTPS port (HTTP/2 and HTTP/1.1) for all clients; cannot be 0' },
  'bind-address': { set: (o, v) => (o.bindAddress = v), help: 'address to listen on' },
  'uws-port': { set: (o, v) => (o.uwsPort = int('uws-port', 0, 65535)(v)), help: 'uWebSockets.js HTTPS port for token and anonymous clients (0 = off)' },
  'data-dir': { set: (o, v) => (o.dataDir = v), help: 'directory for the embedded store and generated credentials' },
  'api-flavor': {
    set: (o, v) => {
      if (!isApiFlavor(v)) throw new OptionsError(`invalid value for --api-flavor: ${JSON.stringify(v)} (one of ${API_FLAVORS.join(', ')})`);
      o.apiFlavor = v;
    },
    help: "whose names the API speaks: orch (the spec's, default) or kubernetes (the original's, for programs built for it); the data dir keeps its first flavor",
  },
  'storage-backend': {
    set: (o, v) => {
      if (v !== 'embedded' && v !== 'etcd3') throw new OptionsError(`invalid value ${JSON.stringify(v)} for --storage-backend: supported values: embedded, etcd3`);
      o.storageBackend = v;
    },
    help: 'embedded (default) or etcd3',
  },
  'embedded-wal-repair': {
    set: (o, v) => (o.embeddedWalRepair = bool('embedded-wal-repair')(v)),
    boolean: true,
    help: 'start even if the embedded store is damaged, by cutting its log at the damage (writes after it are lost; logged, the cut bytes kept as .broken files); for one start only, see ops/runbook.md',
  },
  'encryption-provider-config': {
    set: (o, v) => (o.encryptionProviderConfig = v),
    help: 'file with the EncryptionConfiguration: how objects are encrypted at rest per resource (identity, aescbc, aesgcm, secretbox, kms v1/v2)',
  },
  'etcd-servers': { set: (o, v) => (o.etcdServers = list(v)), help: 'etcd client URLs, comma-separated' },
  'etcd-prefix': { set: (o, v) => (o.etcdPrefix = v), help: 'key prefix in etcd' },
  'etcd-compaction-interval': { set: (o, v) => (o.etcdCompactionIntervalMs = parseDuration(v)), help: 'interval of storage compaction (0 = never)' },
  shards: { set: (o, v) => (o.shards = int('shards', 1, 256)(v)), help: 'number of watch-cache shards (default: CPU count)' },
  'frontend-threads': {
    set: (o, v) => (o.frontendThreads = int('frontend-threads', 1, 256)(v)),
    help: 'threads serving requests on the same ports, the main one included (default: CPU count; 1 = the main thread alone)',
  },
  'uws-threads': {
    set: (o, v) => (o.uwsThreads = int('uws-threads', 1, 256)(v)),
    help: 'how many of the serving threads listen on the uWS port, the main one first (default: CPU count less one, at least 1)',
  },
  'watch-cache': { set: (o, v) => (o.watchCache = bool('watch-cache')(v)), boolean: true, help: 'enable the watch cache' },
  'default-watch-cache-size': { set: (o, v) => (o.defaultWatchCacheSize = int('default-watch-cache-size', 0, 1 << 24)(v)), help: 'minimum events kept per resource' },
  'watch-cache-sizes': {
    set: (o, v) => {
      for (const item of list(v)) {
        const [res, size] = item.split('#');
        if (!res || size === undefined) throw new OptionsError(`invalid --watch-cache-sizes entry ${JSON.stringify(item)}: expected resource[.group]#size`);
        o.watchCacheSizes.set(res, int('watch-cache-sizes', 0, 1 << 24)(size));
      }
    },
    help: 'per-resource cache sizes: resource[.group]#size,...',
  },
  'client-ca-file': { set: (o, v) => (o.clientCaFile = v), help: 'CA bundle for client certificates' },
  'token-auth-file': { set: (o, v) => (o.tokenAuthFile = v), help: 'static token file (CSV: token,user,uid,"g1,g2")' },
  'anonymous-auth': { set: (o, v) => (o.anonymousAuth = bool('anonymous-auth')(v)), boolean: true, help: 'allow anonymous requests' },
  'authorization-mode': { set: (o, v) => (o.authorizationMode = list(v)), help: 'ordered authorization modules' },
  'authorization-policy-file': { set: (o, v) => (o.authorizationPolicyFile = v), help: 'ABAC policy file (one JSON policy per line); needs --authorization-mode=ABAC' },
  'authorization-webhook-config-file': { set: (o, v) => (o.authorizationWebhookConfigFile = v), help: 'kubeconfig of the authorization webhook; needs --authorization-mode=Webhook' },
  'authorization-webhook-version': { set: (o, v) => (o.authorizationWebhookVersion = v), help: 'SubjectAccessReview version sent to the webhook: v1beta1 or v1' },
  'authorization-webhook-cache-authorized-ttl': { set: (o, v) => (o.authorizationWebhookCacheAuthorizedTtlMs = parseDuration(v)), help: 'how long allowed webhook answers are cached' },
  'authorization-webhook-cache-unauthorized-ttl': { set: (o, v) => (o.authorizationWebhookCacheUnauthorizedTtlMs = parseDuration(v)), help: 'how long other webhook answers are cached' },
  'tls-cert-file': { set: (o, v) => (o.tlsCertFile = v), help: 'serving certificate (default: generated in the data dir)' },
  'tls-private-key-file': { set: (o, v) => (o.tlsPrivateKeyFile = v), help: 'serving key' },
  'service-account-key-file': { set: (o, v) => o.serviceAccountKeyFiles.push(v), help: 'service-account verification key (repeatable)' },
  'service-account-signing-key-file': { set: (o, v) => (o.serviceAccountSigningKeyFile = v), help: 'service-account signing key' },
  'service-account-issuer': {
    set: (o, v) => {
      if (v === '') throw new OptionsError('invalid value "" for --service-account-issuer: must not be empty');
      if (v.includes(':') && !URL.canParse(v)) throw new OptionsError(`invalid value ${JSON.stringify(v)} for --service-account-issuer: contains a ':' but is not a URL`);
      if (!o.serviceAccountIssuers.includes(v)) o.serviceAccountIssuers.push(v);
    },
    help: 'issuer of service-account tokens (repeatable: the first signs new tokens, all are accepted; default https://<cluster host>.default.svc.cluster.local)',
  },
  'service-account-max-token-expiration': {
    set: (o, v) => {
      const seconds = parseDuration(v) / 1000;
      if (seconds !== 0 && (seconds < 3600 || seconds > 2 ** 32)) {
        throw new OptionsError('invalid value for --service-account-max-token-expiration: must be between 1 hour and 2^32 seconds');
      }
      o.serviceAccountMaxTokenExpirationSeconds = Math.floor(seconds);
    },
    help: 'longest lifetime a TokenRequest may get (default: no cap)',
  },
  'service-account-extend-token-expiration': {
    set: (o, v) => (o.serviceAccountExtendTokenExpiration = bool('service-account-extend-token-expiration')(v)),
    boolean: true,
    help: 'pod-bound tokens asked for 3607 s get a year, with a warn-after claim at the requested expiry (default true)',
  },
  'service-account-lookup': {
    set: (o, v) => (o.serviceAccountLookup = bool('service-account-lookup')(v)),
    boolean: true,
    help: 'legacy service-account tokens need their secret and service account to exist (default true; bound tokens are always checked)',
  },
  'api-audiences': { set: (o, v) => (o.apiAudiences = list(v)), help: 'audiences of the API: tokens must name one (default: the service-account issuers)' },
  'service-account-jwks-uri': {
    set: (o, v) => {
      if (!URL.canParse(v) || new URL(v).protocol !== 'https:') throw new OptionsError(`invalid value ${JSON.stringify(v)} for --service-account-jwks-uri: must be an https URL`);
      o.serviceAccountJwksUri = v;
    },
    help: 'jwks_uri of the issuer discovery document (default https://<this server>/openid/v1/jwks)',
  },
  'max-requests-inflight': { set: (o, v) => (o.maxRequestsInflight = int('max-requests-inflight', 0, 1 << 20)(v)), help: 'read-only in-flight limit (0 = none)' },
  'max-mutating-requests-inflight': { set: (o, v) => (o.maxMutatingRequestsInflight = int('max-mutating-requests-inflight', 0, 1 << 20)(v)), help: 'mutating in-flight limit (0 = none)' },
  'enable-priority-and-fairness': {
    set: (o, v) => (o.enablePriorityAndFairness = bool('enable-priority-and-fairness')(v)),
    boolean: true,
    help: 'classify and queue requests by FlowSchemas and PriorityLevelConfigurations; the two in-flight limits summed are the seats shared by the levels (default true; false: max in-flight limits)',
  },
  'request-timeout': { set: (o, v) => (o.requestTimeoutMs = parseDuration(v)), help: 'timeout of non-long-running requests' },
  'min-request-timeout': { set: (o, v) => (o.minRequestTimeoutSeconds = int('min-request-timeout', 1, 1 << 30)(v)), help: 'minimum watch timeout, seconds' },
  'http2-engine': {
    set: (o, v) => {
      if (v !== 'nghttp2' && v !== 'js') throw new OptionsError(`invalid value ${JSON.stringify(v)} for --http2-engine: must be nghttp2 or js`);
      o.http2Engine = v;
    },
    help: "the secure port's HTTP/2 implementation: nghttp2 (node:http2) or js (this server's own, about half the CPU a request)",
  },
  'http2-max-streams-per-connection': { set: (o, v) => (o.http2MaxStreamsPerConnection = int('http2-max-streams-per-connection', 0, 1 << 20)(v)), help: "HTTP/2 streams per connection (0 = 250, the original's default)" },
  'http-idle-timeout': {
    set: (o, v) => (o.httpIdleTimeoutMs = positiveDuration('http-idle-timeout', v)),
    help: 'secure port: close HTTP/1.1 connections idle between requests and HTTP/2 connections with no open stream after this (default 1m30s, as the original)',
  },
  'http-read-header-timeout': {
    set: (o, v) => (o.httpReadHeaderTimeoutMs = positiveDuration('http-read-header-timeout', v)),
    help: "secure port: the TLS handshake, a request's head (HTTP/1.1) or the client's SETTINGS (HTTP/2) must arrive within this (default 32s, as the original)",
  },
  'identity-lease-duration-seconds': { set: (o, v) => (o.identityLeaseDurationSeconds = int('identity-lease-duration-seconds', 1, 1 << 30)(v)), help: 'duration of each API server identity Lease (default 3600)' },
  'identity-lease-renew-interval-seconds': { set: (o, v) => (o.identityLeaseRenewIntervalSeconds = int('identity-lease-renew-interval-seconds', 1, 1 << 30)(v)), help: 'interval of renewing the identity Lease (default 10)' },
  'endpoint-reconciler-type': {
    set: (o, v) => {
      if (v !== 'lease' && v !== 'master-count' && v !== 'none') throw new OptionsError(`--endpoint-reconciler-type must be one of lease, master-count, none; got ${JSON.stringify(v)}`);
      o.endpointReconcilerType = v;
    },
    help: 'how the API Service endpoints are kept: lease (default), master-count, none',
  },
  'profiling': { set: (o, v) => (o.profiling = bool('profiling')(v)), boolean: true, help: 'serve /debug/pprof/profile and /debug/pprof/heap (default true)' },
  'event-ttl': { set: (o, v) => (o.eventTtlMs = parseDuration(v)), help: 'amount of time to retain events (default 1h0m0s)' },
  controllers: {
    set: (o, v) => (o.controllers = list(v)),
    help: "in-server controllers: '*' the default set (bootstrapsigner and tokencleaner are off by default), 'name' adds one, '-name' removes one",
  },
  'root-ca-file': { set: (o, v) => (o.rootCaFile = v), help: "CA bundle published as the root CA config map and in legacy token secrets (default: the data dir's CA)" },
  'shutdown-delay-duration': {
    set: (o, v) => (o.shutdownDelayMs = parseDuration(v)),
    help: 'time /readyz fails (while /livez and /healthz pass and requests are still served) before the server stops taking new requests (default 0s)',
  },
  'shutdown-send-retry-after': {
    set: (o, v) => (o.shutdownSendRetryAfter = bool('shutdown-send-retry-after')(v)),
    boolean: true,
    help: 'after --shutdown-delay-duration, keep listening and answer new requests 429 with Retry-After and Connection: close until in-flight requests drain (default false: the listeners close)',
  },
  'livez-grace-period': { set: (o, v) => (o.livezGracePeriodMs = parseDuration(v)), help: 'time after start during which /livez counts unfinished boot-sequence checks as ok (default 0s)' },
  'goaway-chance': {
    set: (o, v) => (o.goawayChance = goawayChance(v)),
    help: 'probability (0 to 0.02) that an HTTP/2 response is followed by GOAWAY, so clients reconnect and spread over servers (default 0: off)',
  },
  'max-connection-bytes-per-sec': {
    set: (o, v) => (o.maxConnectionBytesPerSec = int('max-connection-bytes-per-sec', 0, Number.MAX_SAFE_INTEGER)(v)),
    help: 'if non-zero, throttle the output of each long-running request (watches) to this many bytes a second (default 0)',
  },
  'runtime-config': {
    set: (o, v) => addRuntimeConfig(o.runtimeConfig, v),
    help:
      'A set of key=value pairs that enable or disable built-in APIs. Supported options are:\n' +
      '        v1=true|false for the core API group\n' +
      '        <group>/<version>=true|false for a specific API group and version (e.g. apps/v1=true)\n' +
      '        api/all=true|false controls all API versions\n' +
      '        api/ga=true|false controls all API versions of the form v[0-9]+\n' +
      '        api/beta=true|false controls all API versions of the form v[0-9]+beta[0-9]+\n' +
      '        api/alpha=true|false controls all API versions of the form v[0-9]+alpha[0-9]+\n' +
      '        api/legacy is deprecated, and will be removed in a future version',
  },
  'disabled-metrics': {
    set: (o, v) => {
      const names = list(v);
      try {
        checkDisabledMetrics(names);
      } catch (err) {
        throw new OptionsError((err as Error).message);
      }
      o.disabledMetrics.push(...names);
    },
    help: "This flag provides an escape hatch for misbehaving metrics. You must provide the fully qualified metric name in order to disable it. Disclaimer: disabling metrics is higher in precedence than showing hidden metrics.",
  },
  'show-hidden-metrics-for-version': {
    set: (o, v) => {
      try {
        checkShowHiddenVersion(CURRENT_RELEASE, v);
      } catch (err) {
        throw new OptionsError((err as Error).message);
      }
      o.showHiddenMetricsForVersion = v;
    },
    help: "The previous version for which you want to show hidden metrics. Only the previous minor version is meaningful, other values will not be allowed. The format is <major>.<minor>, e.g.: '1.16'. The purpose of this format is make sure you have the opportunity to notice if the next release hides additional metrics, rather than being surprised when they are permanently removed in the release after that.",
  },
  'feature-gates': {
    set: (o, v) => {
      // pflag wraps a Value's error: invalid argument "<value>" for "--feature-gates" flag: <error>.
      try {
        const next = new Map(o.featureGates);
        addFeatureGates(next, v);
        new FeatureGates(next);
        o.featureGates = next;
      } catch (err) {
        if (!(err instanceof FeatureGateError)) throw err;
        throw new OptionsError(`invalid argument ${JSON.stringify(v)} for "--feature-gates" flag: ${err.message}`);
      }
    },
    help: featureGatesHelp(),
  },
  'enable-admission-plugins': { set: (o, v) => (o.enableAdmissionPlugins = list(v)), help: 'admission plugins to enable besides the defaults' },
  'disable-admission-plugins': { set: (o, v) => (o.disableAdmissionPlugins = list(v)), help: 'admission plugins to disable' },
  'default-not-ready-toleration-seconds': {
    set: (o, v) => (o.defaultNotReadyTolerationSeconds = int('default-not-ready-toleration-seconds', -Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER)(v)),
    help: 'tolerationSeconds of the not-ready:NoExecute toleration added to pods without one (default 300)',
  },
  'default-unreachable-toleration-seconds': {
    set: (o, v) => (o.defaultUnreachableTolerationSeconds = int('default-unreachable-toleration-seconds', -Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER)(v)),
    help: 'tolerationSeconds of the unreachable:NoExecute toleration added to pods without one (default 300)',
  },
  'admission-control-config-file': { set: (o, v) => (o.admissionControlConfigFile = v), help: 'file with admission control configuration (AdmissionConfiguration: per-plugin configuration)' },
  'log-level': { set: (o, v) => (o.logLevel = v), help: 'trace, debug, info, warn, error' },
  'watch-cache-retention': { set: (o, v) => (o.watchCacheRetentionMs = parseDuration(v)), help: 'how long watch caches keep events (default 5m0s)' },
  'watch-bookmark-interval': { set: (o, v) => (o.watchBookmarkIntervalMs = parseDuration(v)), help: 'interval of watch bookmarks (default 1m0s)' },
  'continue-token-lifetime': { set: (o, v) => (o.continueTokenLifetimeMs = parseDuration(v)), help: 'lifetime of list continue tokens (default 5m0s)' },
  'watch-max-buffered-bytes': { set: (o, v) => (o.watchMaxBufferedBytes = int('watch-max-buffered-bytes', 1024, 2 ** 40)(v)), help: 'output a slow watcher may have pending before it is dropped (default 64 MiB)' },
  'watch-max-total-buffered-bytes': {
    set: (o, v) => (o.watchMaxTotalBufferedBytes = int('watch-max-total-buffered-bytes', 1024, 2 ** 44)(v)),
    help: 'output all slow watchers together may have pending (shared event bytes counted once) before the one with the most is dropped (default 512 MiB, at most a quarter of memory)',
  },
  'list-stream-bytes': {
    set: (o, v) => (o.listStreamBytes = int('list-stream-bytes', 0, 2 ** 40)(v)),
    help: 'a JSON LIST answer with at least this many bytes of items is sent in 1 MiB pieces as the shard copies them, rather than built whole first (default 4 MiB; 0 disables)',
  },
  'list-cache-bytes': {
    set: (o, v) => (o.listCacheBytes = int('list-cache-bytes', 0, 2 ** 40)(v)),
    help: 'bytes of large LIST answers each shard keeps (up to 10 s, until 1 s after the last ask or the next write to the type) to share between clients listing the same thing (default 128 MiB; 0 disables)',
  },
  'service-cluster-ip-range': {
    set: (o, v) => {
      try {
        parseServiceClusterIPRanges(v);
      } catch (err) {
        throw new OptionsError((err as Error).message);
      }
      o.serviceClusterIPRange = v;
    },
    help: `CIDR range for service cluster IPs, or a dual-stack pair v4cidr,v6cidr (default ${DEFAULT_SERVICE_CLUSTER_IP_RANGE})`,
  },
  'service-node-port-range': {
    set: (o, v) => {
      try {
        parseServiceNodePortRange(v);
      } catch (err) {
        throw new OptionsError((err as Error).message);
      }
      o.serviceNodePortRange = v;
    },
    help: `port range for NodePort services (default ${DEFAULT_SERVICE_NODE_PORT_RANGE})`,
  },
  'service-allocation-repair-interval': {
    set: (o, v) => (o.serviceAllocationRepairIntervalMs = parseDuration(v)),
    help: 'interval of the repair pass that reconciles cluster IP and node port allocations with existing services (default 3m0s; 0 = only at start)',
  },
  'tls-san': { set: (o, v) => o.tlsSanHosts.push(...list(v)), help: 'extra host names/IPs for the generated serving certificate' },
  'enable-bootstrap-token-auth': {
    set: (o, v) => (o.enableBootstrapTokenAuth = bool('enable-bootstrap-token-auth')(v)),
    boolean: true,
    help: 'accept bootstrap tokens (secrets bootstrap-token-<id> of the system namespace) as bearer tokens',
  },
  'requestheader-client-ca-file': {
    set: (o, v) => (o.requestheaderClientCaFile = v),
    help: 'CA bundle that verifies the authenticating proxy\'s client certificate before the identity headers are read (secure port only)',
  },
  'requestheader-allowed-names': { set: (o, v) => o.requestheaderAllowedNames.push(...list(v)), help: 'common names the proxy\'s client certificate may have (empty = any)' },
  'requestheader-username-headers': { set: (o, v) => o.requestheaderUsernameHeaders.push(...list(v)), help: 'request headers to read the user name from, first with a value wins (X-Remote-User suggested)' },
  'requestheader-group-headers': { set: (o, v) => o.requestheaderGroupHeaders.push(...list(v)), help: 'request headers whose values are groups (X-Remote-Group suggested)' },
  'requestheader-extra-headers-prefix': { set: (o, v) => o.requestheaderExtraHeadersPrefix.push(...list(v)), help: 'request header prefixes of extra user fields (X-Remote-Extra- suggested)' },
  'oidc-issuer-url': { set: (o, v) => (o.oidc.issuerUrl = v), help: 'URL of the OpenID issuer (https only); with --oidc-client-id, ID tokens are accepted as bearer tokens' },
  'oidc-client-id': { set: (o, v) => (o.oidc.clientId = v), help: 'client id ID tokens must be issued to (their aud); required with --oidc-issuer-url' },
  'oidc-ca-file': { set: (o, v) => (o.oidc.caFile = v), help: "CA bundle that verifies the provider's certificate (default: the host's root CAs)" },
  'oidc-username-claim': { set: (o, v) => (o.oidc.usernameClaim = v), help: "claim used as the user name (default sub); claims other than email are prefixed with '<issuer>#' unless --oidc-username-prefix is set" },
  'oidc-username-prefix': { set: (o, v) => (o.oidc.usernamePrefix = v), help: "prefix of user names from OIDC ('-' for none)" },
  'oidc-groups-claim': { set: (o, v) => (o.oidc.groupsClaim = v), help: 'claim holding the groups (a string or a list of strings)' },
  'oidc-groups-prefix': { set: (o, v) => (o.oidc.groupsPrefix = v), help: 'prefix of group names from OIDC' },
  'oidc-signing-algs': { set: (o, v) => (o.oidc.signingAlgs = list(v)), help: `allowed JOSE signing algorithms, comma-separated (default RS256; of ${OIDC_SIGNING_ALGS.join(', ')})` },
  'oidc-required-claim': {
    set: (o, v) => {
      try {
        const [key, value] = parseRequiredClaim(v);
        o.oidc.requiredClaims.set(key, value);
      } catch (err) {
        throw new OptionsError((err as Error).message);
      }
    },
    help: 'key=value a token must carry (repeatable)',
  },
  'authentication-token-webhook-config-file': { set: (o, v) => (o.tokenWebhook.configFile = v), help: 'kubeconfig of the token authentication webhook (server, certificate-authority, client certificate and key)' },
  'authentication-token-webhook-cache-ttl': { set: (o, v) => (o.tokenWebhook.cacheTtlMs = parseDuration(v)), help: 'how long webhook answers are cached (default 2m0s)' },
  'authentication-token-webhook-version': {
    set: (o, v) => {
      if (!isTokenWebhookVersion(v)) throw new OptionsError(`invalid value ${JSON.stringify(v)} for --authentication-token-webhook-version: must be one of ${TOKEN_WEBHOOK_VERSIONS.join(', ')}`);
      o.tokenWebhook.version = v;
    },
    help: 'TokenReview version sent to and expected from the webhook: v1beta1 (default) or v1',
  },
  // The --audit-* flags (src/audit/config.ts), on the options' audit part.
  ...Object.fromEntries(
    Object.entries(AUDIT_FLAGS).map(([name, f]) => [
      name,
      {
        ...f,
        set: (o: ServerOptions, v: string) => {
          try {
            f.set(o.audit, v);
          } catch (err) {
            throw err instanceof AuditConfigError ? new OptionsError(err.message) : err;
          }
        },
      },
    ]),
  ),
};

// The controller manager's signing and leader election flags (src/certificates/signing-options.ts).
for (const k of Object.keys(SIGNER_FLAGS) as SignerFlag[]) {
  FLAGS[`cluster-signing-${k}-cert-file`] = { set: (o, v) => (o.clusterSigning.perSigner[k].certFile = v), help: `CA certificate that signs for ${SIGNER_FLAGS[k]} (with the key file)` };
  FLAGS[`cluster-signing-${k}-key-file`] = { set: (o, v) => (o.clusterSigning.perSigner[k].keyFile = v), help: `CA key that signs for ${SIGNER_FLAGS[k]}` };
}
Object.assign(FLAGS, {
  'cluster-signing-cert-file': { set: (o: ServerOptions, v: string) => (o.clusterSigning.all.certFile = v), help: 'CA certificate that signs for every built-in signer (default: the data dir\'s cluster CA)' },
  'cluster-signing-key-file': { set: (o: ServerOptions, v: string) => (o.clusterSigning.all.keyFile = v), help: 'CA key that signs for every built-in signer' },
  'cluster-signing-duration': { set: (o: ServerOptions, v: string) => (o.clusterSigning.durationMs = parseDuration(v)), help: 'longest lifetime of signed certificates (default 8760h0m0s)' },
  'leader-elect': { set: (o: ServerOptions, v: string) => (o.leaderElection.enabled = bool('leader-elect')(v)), boolean: true, help: 'run the once-per-cluster controllers (CSR signing) only while holding the controller manager lease (default true)' },
  'leader-elect-lease-duration': { set: (o: ServerOptions, v: string) => (o.leaderElection.leaseDurationMs = positiveDuration('leader-elect-lease-duration', v)), help: 'how long a lease is held without renewal before others take it (default 15s)' },
  'leader-elect-renew-deadline': { set: (o: ServerOptions, v: string) => (o.leaderElection.renewDeadlineMs = positiveDuration('leader-elect-renew-deadline', v)), help: 'how long the leader retries renewing before it stops leading (default 10s)' },
  'leader-elect-retry-period': { set: (o: ServerOptions, v: string) => (o.leaderElection.retryPeriodMs = positiveDuration('leader-elect-retry-period', v)), help: 'interval of acquire and renew attempts (default 2s)' },
});

export function defaultOptions(): ServerOptions {
  return {
    securePort: 6443,
    bindAddress: '0.0.0.0',
    uwsPort: 6444,
    dataDir: './data',
    apiFlavor: DEFAULT_API_FLAVOR,
    storageBackend: 'embedded',
    embeddedWalRepair: false,
    encryptionProviderConfig: undefined,
    etcdServers: [],
    etcdPrefix: '/registry',
    etcdCompactionIntervalMs: 5 * 60_000,
    shards: Math.max(1, os.availableParallelism()),
    frontendThreads: Math.max(1, os.availableParallelism()),
    // One core's worth left to the shard and store-host threads: a uWS request costs so little on its serving thread
    // that a second one sharing the port on two cores added no throughput and 15-35% CPU per request (README, issue 11
    // session 20); node:http2 costs ~5x as much per request, so the secure port keeps every serving thread.
    uwsThreads: Math.max(1, os.availableParallelism() - 1),
    watchCache: true,
    defaultWatchCacheSize: 100,
    watchCacheSizes: new Map(),
    clientCaFile: undefined,
    tokenAuthFile: undefined,
    anonymousAuth: true,
    authorizationMode: ['AlwaysAllow'],
    authorizationPolicyFile: undefined,
    authorizationWebhookConfigFile: undefined,
    authorizationWebhookVersion: 'v1beta1',
    authorizationWebhookCacheAuthorizedTtlMs: 5 * 60_000,
    authorizationWebhookCacheUnauthorizedTtlMs: 30_000,
    tlsCertFile: undefined,
    tlsPrivateKeyFile: undefined,
    serviceAccountKeyFiles: [],
    serviceAccountSigningKeyFile: undefined,
    serviceAccountIssuers: [],
    serviceAccountMaxTokenExpirationSeconds: 0,
    serviceAccountExtendTokenExpiration: true,
    serviceAccountLookup: true,
    apiAudiences: [],
    serviceAccountJwksUri: undefined,
    maxRequestsInflight: 400,
    maxMutatingRequestsInflight: 200,
    enablePriorityAndFairness: true,
    requestTimeoutMs: 60_000,
    minRequestTimeoutSeconds: 1800,
    http2MaxStreamsPerConnection: 0,
    http2Engine: 'js',
    httpIdleTimeoutMs: 90_000,
    httpReadHeaderTimeoutMs: 32_000,
    shutdownDelayMs: 0,
    eventTtlMs: 3_600_000,
    profiling: true,
    identityLeaseDurationSeconds: 3600,
    identityLeaseRenewIntervalSeconds: 10,
    endpointReconcilerType: 'lease',
    shutdownSendRetryAfter: false,
    livezGracePeriodMs: 0,
    goawayChance: 0,
    maxConnectionBytesPerSec: 0,
    runtimeConfig: new Map(),
    featureGates: new Map(),
    disabledMetrics: [],
    showHiddenMetricsForVersion: '',
    enableAdmissionPlugins: [],
    disableAdmissionPlugins: [],
    defaultNotReadyTolerationSeconds: 300,
    defaultUnreachableTolerationSeconds: 300,
    admissionControlConfigFile: undefined,
    logLevel: 'info',
    tlsSanHosts: [],
    watchCacheRetentionMs: 5 * 60_000,
    listCacheBytes: DEFAULT_LIST_RESULT_CACHE.budgetBytes,
    listStreamBytes: LIST_STREAM_MIN_BYTES,
    watchBookmarkIntervalMs: 60_000,
    continueTokenLifetimeMs: 5 * 60_000,
    watchMaxBufferedBytes: 64 * 1024 * 1024,
    serviceClusterIPRange: DEFAULT_SERVICE_CLUSTER_IP_RANGE,
    serviceNodePortRange: DEFAULT_SERVICE_NODE_PORT_RANGE,
    serviceAllocationRepairIntervalMs: 3 * 60_000,
    watchMaxTotalBufferedBytes: defaultWatchBudgetBytes(),
    enableBootstrapTokenAuth: false,
    requestheaderClientCaFile: undefined,
    requestheaderAllowedNames: [],
    requestheaderUsernameHeaders: [],
    requestheaderGroupHeaders: [],
    requestheaderExtraHeadersPrefix: [],
    oidc: defaultOidcOptions(),
    tokenWebhook: defaultTokenWebhookOptions(),
    controllers: ['*'],
    rootCaFile: undefined,
    audit: defaultAuditOptions(),
    clusterSigning: defaultClusterSigningOptions(),
    leaderElection: defaultLeaderElectionOptions(),
  };
}

/** 512 MiB, or a quarter of the machine's memory if that is less. */
function defaultWatchBudgetBytes(): number {
  return Math.min(512 * 1024 * 1024, Math.floor(os.totalmem() / 4));
}

export function parseArgs(argv: readonly string[]): ServerOptions {
  const o = defaultOptions();
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (!arg.startsWith('--')) throw new OptionsError(`unexpected argument ${JSON.stringify(arg)}`);
    const eq = arg.indexOf('=');
    const name = eq < 0 ? arg.slice(2) : arg.slice(2, eq);
    const flag = FLAGS[name];
    if (flag === undefined) throw new OptionsError(`unknown flag: --${name}`);
    let value: string;
    if (eq >= 0) value = arg.slice(eq + 1);
    else if (flag.boolean) value = 'true';
    else {
      if (i + 1 >= argv.length) throw new OptionsError(`flag needs an argument: --${name}`);
      value = argv[++i]!;
    }
    flag.set(o, value);
  }
  validateOptions(o);
  return o;
}

export function usage(): string {
  return Object.entries(FLAGS)
    .map(([name, f]) => `  --${name}\n        ${f.help}`)
    .join('\n');
}

