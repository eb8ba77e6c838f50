/**
 * One webhook of a configuration, read once when its configuration arrives
 * from the watch (never per request): selectors parsed, defaults of v1
 * filled for fields an older shape left out, the CA bundle decoded. The
 * dispatchers only read these.
 */
import type { KObject } from '../../registry/object.ts';
import { labelSelectorFromObject, type LabelSelector, type LabelSelectorObject } from '../../selectors/index.ts';

export type WebhookKind = 'mutating' | 'validating';

export interface WebhookRule {
  readonly operations: readonly string[];
  readonly apiGroups: readonly string[];
  readonly apiVersions: readonly string[];
  readonly resources: readonly string[];
  readonly scope: string;
}

export interface ServiceReference {
  readonly namespace: string;
  readonly name: string;
  readonly path: string;
  readonly port: number;
}

export interface ClientConfig {
  readonly url: string | undefined;
  readonly service: ServiceReference | undefined;
  /** PEM roots for the webhook's serving certificate; the system's when undefined. */
  readonly caPem: string | undefined;
}

export interface Webhook {
  /** Unique per thread for the life of this configuration version: `<kind>/<config>/<index>`. */
  readonly uid: string;
  readonly kind: WebhookKind;
  readonly configurationName: string;
  readonly name: string;
  readonly rules: readonly WebhookRule[];
  /** A selector, or the reason it cannot be parsed (an internal error when the webhook is consulted, as the original). */
  readonly namespaceSelector: LabelSelector | Error;
  readonly objectSelector: LabelSelector | Error;
  readonly matchPolicy: 'Exact' | 'Equivalent';
  readonly failurePolicy: 'Fail' | 'Ignore';
  /** As stored: v1 `None`/`NoneOnDryRun`; older shapes may hold `Unknown` or `Some`. */
  readonly sideEffects: string | undefined;
  readonly timeoutSeconds: number;
  readonly reinvocationPolicy: 'Never' | 'IfNeeded';
  readonly admissionReviewVersions: readonly string[];
  readonly clientConfig: ClientConfig;
}

type Obj = Record<string, unknown>;

function isObj(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function strings(v: unknown): string[] {
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
}

function selector(v: unknown): LabelSelector | Error {
  // A missing selector is the v1 default `{}`: everything.
  if (v === undefined || v === null) return labelSelectorFromObject({});
  try {
    return labelSelectorFromObject(v as LabelSelectorObject);
  } catch (err) {
    return err instanceof Error ? err : new Error(String(err));
  }
}

function decodeCaBundle(v: unknown): string | undefined {
  if (typeof v !== 'string' || v === '') return undefined;
  const text = Buffer.from(v, 'base64').toString('utf8');
  return text.includes('-----BEGIN') ? text : undefined;
}

function clientConfig(v: unknown): ClientConfig {
  const cc = isObj(v) ? v : {};
  const svc = isObj(cc['service']) ? cc['service'] : undefined;
  return {
    url: typeof cc['url'] === 'string' ? cc['url'] : undefined,
    service:
      svc === undefined
        ? undefined
        : {
            namespace: typeof svc['namespace'] === 'string' ? svc['namespace'] : '',
            name: typeof svc['name'] === 'string' ? svc['name'] : '',
            path: typeof svc['path'] === 'string' ? svc['path'] : '',
            port: typeof svc['port'] === 'number' ? svc['port'] : 443,
          },
    caPem: decodeCaBundle(cc['caBundle']),
  };
}

/** The webhooks of one configuration object, in their order. */
export function readWebhooks(kind: WebhookKind, config: KObject): Webhook[] {
  const configurationName = config.metadata.name ?? '';
  const list = Array.isArray(config['webhooks']) ? (config['webhooks'] as unknown[]) : [];
  const out: Webhook[] = [];
  list.forEach((h, i) => {
    if (!isObj(h)) return;
    const rules: WebhookRule[] = [];
    for (const r of Array.isArray(h['rules']) ? (h['rules'] as unknown[]) : []) {
      if (!isObj(r)) continue;
      rules.push({
        operations: strings(r['operations']),
        apiGroups: strings(r['apiGroups']),
        apiVersions: strings(r['apiVersions']),
        resources: strings(r['resources']),
        scope: typeof r['scope'] === 'string' ? r['scope'] : '*',
      });
    }
    const timeout = typeof h['timeoutSeconds'] === 'number' ? h['timeoutSeconds'] : 10;
    out.push({
      uid: `${kind}/${configurationName}/${i}`,
      kind,
      configurationName,
      name: typeof h['name'] === 'string' ? h['name'] : '',
      rules,
      namespaceSelector: selector(h['namespaceSelector']),
      objectSelector: selector(h['objectSelector']),
      matchPolicy: h['matchPolicy'] === 'Exact' ? 'Exact' : 'Equivalent',
      failurePolicy: h['failurePolicy'] === 'Ignore' ? 'Ignore' : 'Fail',
      sideEffects: typeof h['sideEffects'] === 'string' ? h['sideEffects'] : undefined,
      timeoutSeconds: Math.min(30, Math.max(1, timeout)),
      reinvocationPolicy: h['reinvocationPolicy'] === 'IfNeeded' ? 'IfNeeded' : 'Never',
      admissionReviewVersions: h['admissionReviewVersions'] === undefined ? ['v1beta1'] : strings(h['admissionReviewVersions']),
      clientConfig: clientConfig(h['clientConfig']),
    });
  });
  return out;
}
