/**
 * Ingresses (networking.<suffix>/v1): a create cannot set status, and every
 * HTTP path is checked as the original's validateHTTPIngressPath checks it:
 *
 * - `pathType` is required (v1 has no default): `Required value: pathType
 *   must be specified`;
 * - Exact and Prefix paths must be absolute and must not contain `//`,
 *   `/./`, `/../`, `%2f`, `%2F` nor end with `/..` or `/.`;
 * - ImplementationSpecific paths, when given, must be absolute;
 * - any other pathType is not supported;
 * - an `http` rule needs at least one path.
 *
 * Status updates (the status subresource) do not re-check the spec, as the
 * original's status strategy does not.
 */
import { fieldErrors, type FieldError, type Strategy } from '../strategy.ts';
import { arr, isMainResource, obj, specOf, statusResetOnCreate, str, type JsonObject } from './util.ts';
import { pushAll } from '../../api/push-all.ts';

const PATH_TYPES = ['Exact', 'ImplementationSpecific', 'Prefix'] as const;
const INVALID_PATH_SEQUENCES = ['//', '/./', '/../', '%2f', '%2F'];
const INVALID_PATH_SUFFIXES = ['/..', '/.'];

function validateHttpPath(path: JsonObject, at: string): FieldError[] {
  const pathType = path['pathType'];
  if (pathType === undefined || pathType === null) return [fieldErrors.required(`${at}.pathType`, 'pathType must be specified')];
  const value = str(path['path']) ?? '';
  const errs: FieldError[] = [];
  switch (pathType) {
    case 'Exact':
    case 'Prefix':
      if (!value.startsWith('/')) errs.push(fieldErrors.invalid(`${at}.path`, value, 'must be an absolute path'));
      if (value !== '') {
        for (const seq of INVALID_PATH_SEQUENCES) if (value.includes(seq)) errs.push(fieldErrors.invalid(`${at}.path`, value, `must not contain '${seq}'`));
        for (const suffix of INVALID_PATH_SUFFIXES) if (value.endsWith(suffix)) errs.push(fieldErrors.invalid(`${at}.path`, value, `cannot end with '${suffix}'`));
      }
      break;
    case 'ImplementationSpecific':
      if (value !== '' && !value.startsWith('/')) errs.push(fieldErrors.invalid(`${at}.path`, value, 'must be an absolute path'));
      break;
    default:
      errs.push(fieldErrors.notSupported(`${at}.pathType`, pathType, PATH_TYPES));
  }
  return errs;
}

/** The path checks of every rule of an Ingress spec. */
export function validateIngressPaths(spec: JsonObject): FieldError[] {
  const errs: FieldError[] = [];
  arr(spec['rules']).forEach((rule, i) => {
    const http = obj(obj(rule)?.['http']);
    if (http === undefined) return;
    const at = `spec.rules[${i}].http`;
    const paths = arr(http['paths']);
    if (paths.length === 0) errs.push(fieldErrors.required(`${at}.paths`));
    paths.forEach((p, j) => pushAll(errs, validateHttpPath(obj(p) ?? {}, `${at}.paths[${j}]`)));
  });
  return errs;
}

export const ingressStrategy: Strategy = statusResetOnCreate(() => ({ loadBalancer: {} }), {
  validate(ing) {
    return validateIngressPaths(specOf(ing));
  },
  validateUpdate(ing, _old, ctx) {
    return isMainResource(ctx) ? validateIngressPaths(specOf(ing)) : [];
  },
});
