/**
 * Namespaces: created Active with the `orch` finalizer that the namespace
 * controller removes once the contents are gone; deleting one turns it
 * Terminating. A port of registry/core/namespace/strategy.go and the
 * namespace validation (pkg/apis/core/validation).
 */
import { fieldErrors, type FieldError, type Strategy } from '../strategy.ts';
import { isQualifiedName } from '../validation/names.ts';
import { arr, ensureObj, obj, str } from './util.ts';
import { names } from '../../naming/index.ts';

/** The finalizer the original calls `kubernetes`: the namespace controller's. */
export const NAMESPACE_FINALIZER = names.namespaceFinalizer;
const STANDARD_FINALIZERS = [NAMESPACE_FINALIZER, 'orphan', 'foregroundDeletion'];

/** spec.finalizers entries: qualified names, and a bare name must be a standard one. */
function validateFinalizerName(name: string, path: string): FieldError[] {
  const errs = isQualifiedName(name).map((msg) => fieldErrors.invalid(path, name, msg));
  if (!name.includes('/') && !STANDARD_FINALIZERS.includes(name)) {
    errs.push(fieldErrors.invalid(path, name, 'name is neither a standard finalizer name nor is it fully qualified'));
  }
  return errs;
}

function keep(target: Record<string, unknown>, source: Record<string, unknown>, key: string): void {
  if (source[key] === undefined) delete target[key];
  else target[key] = source[key];
}

export const namespaceStrategy: Strategy = {
  returnDeletedObject: true,

  prepareForCreate(ns) {
    ns['status'] = { phase: 'Active' };
    // Required on create; not a default, since the controller removes it later.
    const spec = ensureObj(ns, 'spec');
    const finalizers = arr(spec['finalizers']).map(String);
    if (!finalizers.includes(NAMESPACE_FINALIZER)) finalizers.push(NAMESPACE_FINALIZER);
    spec['finalizers'] = finalizers;
  },

  prepareForUpdate(ns, old, ctx) {
    switch (ctx.subresource) {
      case 'finalize':
        keep(ns, old, 'status');
        break;
      case 'status':
        keep(ns, old, 'spec');
        break;
      default: {
        // spec.finalizers changes only through namespaces/finalize.
        const oldFinalizers = obj(old['spec'])?.['finalizers'];
        const spec = ensureObj(ns, 'spec');
        if (oldFinalizers === undefined) delete spec['finalizers'];
        else spec['finalizers'] = oldFinalizers;
        keep(ns, old, 'status');
      }
    }
  },

  prepareForDelete(ns) {
    ensureObj(ns, 'status')['phase'] = 'Terminating';
  },

  validate(ns) {
    return arr(obj(ns['spec'])?.['finalizers']).flatMap((f) => validateFinalizerName(String(f), 'spec.finalizers'));
  },

  validateUpdate(ns, _old, ctx) {
    if (ctx.subresource === 'finalize') {
      return arr(obj(ns['spec'])?.['finalizers']).flatMap((f, i) => validateFinalizerName(String(f), `spec.finalizers[${i}]`));
    }
    if (ctx.subresource === 'status') {
      // The phase follows deletion: Active while live, Terminating once deleted.
      const phase = str(obj(ns['status'])?.['phase']) ?? '';
      if (!ns.metadata.deletionTimestamp) {
        if (phase !== 'Active') return [fieldErrors.invalid('status.Phase', phase, "may only be 'Active' if `deletionTimestamp` is empty")];
      } else if (phase !== 'Terminating') {
        return [fieldErrors.invalid('status.Phase', phase, "may only be 'Terminating' if `deletionTimestamp` is not empty")];
      }
    }
    return [];
  },
};
