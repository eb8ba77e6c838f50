/**
 * The errors the original's plugins build from their attributes
 * (apiserver/pkg/admission/errors.go NewForbidden): `<resource>.<group>
 * "<name>" is forbidden: <reason>`, where the name is the request's, else the
 * object's name or generateName (a create before name generation), else
 * "Unknown".
 */
import { errors, StatusError } from '../../api/status.ts';
import type { AdmissionAttributes } from '../types.ts';
import type { UserInfo } from '../../server/context.ts';

/** The name NewForbidden reports for these attributes. */
export function attributesName(attrs: Pick<AdmissionAttributes, 'name' | 'object'>): string {
  if (attrs.name !== '') return attrs.name;
  const meta = attrs.object?.metadata;
  if (meta === undefined) return 'Unknown';
  if (typeof meta.name === 'string' && meta.name !== '') return meta.name;
  if (typeof meta.generateName === 'string' && meta.generateName !== '') return meta.generateName;
  return 'Unknown';
}

/** admission.NewForbidden(attrs, reason): 403 Forbidden for the request's resource and name. */
export function admissionForbidden(attrs: Pick<AdmissionAttributes, 'name' | 'object' | 'resourceType'>, reason: string): StatusError {
  return errors.forbidden(attrs.resourceType.group, attrs.resourceType.resource, attributesName(attrs), reason);
}

/** The text of an InternalError wrapped in a reason (`Internal error occurred: ...`), as Go prints one. */
export function internalErrorText(message: string): string {
  return `Internal error occurred: ${message}`;
}

/** The request's user, or the anonymous nobody the authorizer denies when a write carries none (internal callers). */
export function userOf(attrs: Pick<AdmissionAttributes, 'user'>): UserInfo {
  return attrs.user ?? { name: '', groups: [] };
}

/** A plain object at `v`, or an empty one (fields of unvalidated objects may be anything). */
export function record(v: unknown): Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
}

/** A string at `v`, or undefined. */
export function str(v: unknown): string | undefined {
  return typeof v === 'string' ? v : undefined;
}

/** An array at `v`, or an empty one. */
export function list(v: unknown): unknown[] {
  return Array.isArray(v) ? v : [];
}
