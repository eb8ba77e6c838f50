/**
 * admission.NewForbidden as the original: `<resource> "<name>" is
 * forbidden: <why>`, where the name is the object's, or its generateName
 * when the name is not generated yet, or "Unknown" without an object.
 */
import { errors, type StatusError } from '../api/status.ts';
import type { AdmissionAttributes } from './types.ts';

export function admissionForbidden(attrs: AdmissionAttributes, why: string): StatusError {
  const obj = attrs.object ?? attrs.oldObject;
  let name = 'Unknown';
  if (obj !== null) {
    if (obj.metadata.name) name = obj.metadata.name;
    else if (obj.metadata.generateName) name = obj.metadata.generateName;
  }
  return errors.forbidden(attrs.resourceType.group, attrs.resourceType.resource, name, why);
}

/** utilerrors.NewAggregate's message: one error alone, several in brackets. */
export function aggregateMessage(messages: readonly string[]): string {
  return messages.length === 1 ? messages[0]! : `[${messages.join(', ')}]`;
}

/** How long a plugin waits for its index before refusing, as the original's WaitForReady (10 s). */
export const READY_TIMEOUT_MS = 10_000;

/** Resolves true once `ready` settles, false after `timeoutMs`. */
export function readyWithin(ready: Promise<void>, timeoutMs = READY_TIMEOUT_MS): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<boolean>((resolve) => {
    // Not unref'd: a request is waiting on it; it is cleared as soon as the index is ready.
    timer = setTimeout(() => resolve(false), timeoutMs);
  });
  return Promise.race([ready.then(() => true), late]).finally(() => clearTimeout(timer));
}
