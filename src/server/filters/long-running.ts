/**
 * Which requests are long-running: exempt from the request timeout and from
 * the in-flight limits (the original's BasicLongRunningRequestCheck with the
 * kube-apiserver's verb and subresource sets).
 *
 * - verbs `watch` (including ?watch=true lists) and `proxy` (legacy
 *   /api/v1/proxy/... paths);
 * - subresources exec, attach, portforward, proxy, and log when following
 *   (`log?follow=true`); a plain log read is an ordinary request.
 */
import type { RequestInfo } from '../context.ts';

const LONG_RUNNING_VERBS = new Set(['watch', 'proxy']);
const LONG_RUNNING_SUBRESOURCES = new Set(['exec', 'attach', 'portforward', 'proxy']);

export function isLongRunning(info: RequestInfo, query: URLSearchParams): boolean {
  if (LONG_RUNNING_VERBS.has(info.verb)) return true;
  if (!info.isResourceRequest) return false;
  if (LONG_RUNNING_SUBRESOURCES.has(info.subresource)) return true;
  if (info.subresource === 'log') {
    const follow = query.get('follow');
    return follow !== null && follow.toLowerCase() !== 'false' && follow !== '0';
  }
  return false;
}
