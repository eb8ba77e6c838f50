/**
 * What every answer must look like. A failure is a JSON Status (kind Status,
 * apiVersion v1, status Failure, a code equal to the HTTP status, a reason
 * from the known set that goes with that code, a message); a success is a
 * well-formed object in the representation asked for. A 5xx for client input
 * is a finding too: the original answers bad input with a 4xx.
 */
import { decodeObject, isProtobufMediaType } from '../../../src/protobuf/index.ts';
import { PANIC_MESSAGE } from '../../../src/server/filters/write-status.ts';

/** Status reasons and the HTTP codes each may carry (apimachinery/pkg/api/errors). */
export const REASON_CODES: Readonly<Record<string, readonly number[]>> = {
  BadRequest: [400],
  Unauthorized: [401],
  Forbidden: [403],
  NotFound: [404],
  MethodNotAllowed: [405],
  NotAcceptable: [406],
  AlreadyExists: [409],
  Conflict: [409],
  Gone: [410],
  Expired: [410],
  RequestEntityTooLarge: [413],
  UnsupportedMediaType: [415],
  Invalid: [422],
  TooManyRequests: [429],
  InternalError: [500],
  ServerTimeout: [500],
  ServiceUnavailable: [503],
  Timeout: [504],
  // StatusReasonUnknown: the original's answer for an error no handler converted (ErrorToAPIStatus), always 500.
  '': [500],
};

export interface Verdict {
  /** Empty when the answer is well-formed. */
  readonly problems: string[];
  /** The decoded JSON body, when there is one. */
  readonly json: Record<string, unknown> | undefined;
}

export interface Answer {
  readonly status: number;
  readonly contentType: string;
  readonly body: Buffer;
}

function parseJson(body: Buffer): unknown {
  try {
    return JSON.parse(body.toString('utf8'));
  } catch {
    return undefined;
  }
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Problems with a Status body answered with HTTP `status`. */
export function statusProblems(status: number, v: unknown): string[] {
  if (!isObject(v)) return [`${status} answer is not a JSON object`];
  const p: string[] = [];
  if (v['kind'] !== 'Status') p.push(`kind ${JSON.stringify(v['kind'])}, want Status`);
  if (v['apiVersion'] !== 'v1') p.push(`apiVersion ${JSON.stringify(v['apiVersion'])}, want v1`);
  if (v['status'] !== 'Failure') p.push(`status ${JSON.stringify(v['status'])}, want Failure`);
  if (v['code'] !== status) p.push(`code ${JSON.stringify(v['code'])} differs from HTTP ${status}`);
  const reason = v['reason'];
  if (typeof reason !== 'string' || !(reason in REASON_CODES)) p.push(`unknown reason ${JSON.stringify(reason)}`);
  else if (!REASON_CODES[reason]!.includes(status)) p.push(`reason ${reason} does not go with HTTP ${status}`);
  if (typeof v['message'] !== 'string' || v['message'] === '') p.push('no message');
  return p;
}

export interface AnswerContext {
  /** The path is under /api or /apis: every success is a typed object. */
  readonly resourcePath: boolean;
  /** The path is one the API answers with Status failures: not /healthz, /livez, /readyz, /metrics, /openapi. */
  readonly apiPath: boolean;
  readonly watch: boolean;
  readonly method: string;
  readonly hasResourceVersion: boolean;
}

/** Checks an answer. */
export function checkAnswer(a: Answer, opts: AnswerContext): Verdict {
  const problems: string[] = [];
  let json: Record<string, unknown> | undefined;
  const type = a.contentType.split(';')[0]!.trim().toLowerCase();
  // Redirects and Not Modified only for documents outside the API (the OpenAPI v3 hash redirect, ETags).
  const redirect = a.status === 301 || a.status === 302 || a.status === 304;
  if (a.status < 200 || (a.status >= 300 && a.status < 400 && (opts.resourcePath || !redirect)) || a.status > 599) problems.push(`unexpected HTTP status ${a.status}`);
  // A HEAD answer has no body to judge.
  if (opts.method === 'HEAD') return { problems, json };
  if (a.status >= 400 && !opts.apiPath) {
    // Health, metrics and OpenAPI documents answer failures in text, as the original's handlers do.
    if (a.status >= 500 && a.status !== 503) problems.push(`server error ${a.status} for client input`);
    return { problems, json };
  }
  if (a.status >= 400) {
    if (type !== 'application/json') problems.push(`failure with content-type ${JSON.stringify(a.contentType)}`);
    const v = parseJson(a.body);
    problems.push(...statusProblems(a.status, v));
    if (isObject(v)) json = v;
    // The original answers a resourceVersion it has not reached yet with 504 Timeout ("Too large resource version").
    const tooLargeRv = a.status === 504 && isObject(v) && v['reason'] === 'Timeout' && opts.hasResourceVersion;
    // A 500 with reason "" and its own message is the original's own answer for such errors (strategic merge
    // patch's "does not contain declared merge key", for one); the generic panic 500 is not.
    const originalsUnknown = a.status === 500 && isObject(v) && v['reason'] === '' && v['message'] !== PANIC_MESSAGE;
    if (a.status >= 500 && !tooLargeRv && !originalsUnknown) problems.push(`server error ${a.status} ${isObject(v) ? String(v['reason']) : ''} for client input`);
    return { problems, json };
  }
  if (a.status >= 300) return { problems, json };
  if (!opts.resourcePath || opts.method === 'HEAD' || a.status === 204) return { problems, json };
  if (opts.watch) return { problems, json };
  if (isProtobufMediaType(type)) {
    try {
      decodeObject(a.body);
    } catch (err) {
      problems.push(`Protobuf answer does not decode: ${err instanceof Error ? err.message : String(err)}`);
    }
    return { problems, json };
  }
  if (type !== 'application/json') {
    problems.push(`success with content-type ${JSON.stringify(a.contentType)}`);
    return { problems, json };
  }
  const v = parseJson(a.body);
  if (!isObject(v)) {
    problems.push('success body is not a JSON object');
    return { problems, json };
  }
  json = v;
  if (typeof v['kind'] !== 'string' || v['kind'] === '') problems.push('success object has no kind');
  // The original's /api discovery document (APIVersions) is the one object served without apiVersion.
  if ((typeof v['apiVersion'] !== 'string' || v['apiVersion'] === '') && v['kind'] !== 'APIVersions') problems.push('success object has no apiVersion');
  if (v['kind'] === 'Status' && v['status'] !== 'Success') problems.push(`2xx Status with status ${JSON.stringify(v['status'])}`);
  return { problems, json };
}
