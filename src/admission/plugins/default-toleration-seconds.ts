/**
 * DefaultTolerationSeconds: a pod that does not tolerate the not-ready or
 * unreachable NoExecute taints gets a toleration of each for
 * `--default-not-ready-toleration-seconds` / `--default-unreachable-
 * toleration-seconds` (300 each), so its node's failure evicts it after five
 * minutes, as the original's plugin/pkg/admission/defaulttolerationseconds.
 * On pod create and update (on update the tolerations are already there, or
 * validation refuses the change as the original's does).
 */
import { names } from '../../naming/index.ts';
import type { AdmissionPlugin } from '../types.ts';
import type { AdmissionPluginFactory } from '../plugin-table.ts';
import { isPods, objects, podSpec, str } from './pod-util.ts';

export function defaultTolerationSeconds(notReadySeconds: number, unreachableSeconds: number): AdmissionPlugin {
  const notReady = names.podAdmission.notReadyTaint;
  const unreachable = names.podAdmission.unreachableTaint;
  return {
    name: 'DefaultTolerationSeconds',
    handles: (rt, sub, op) => isPods(rt) && sub === '' && (op === 'CREATE' || op === 'UPDATE'),
    admit(attrs) {
      const spec = podSpec(attrs.object);
      if (spec === undefined) return;
      const current = spec['tolerations'];
      if (current !== undefined && current !== null && !Array.isArray(current)) return; // validation answers
      let toleratesNotReady = false;
      let toleratesUnreachable = false;
      for (const t of objects(current)) {
        const key = str(t['key']);
        const effect = str(t['effect']);
        if (effect !== 'NoExecute' && effect !== '') continue;
        if (key === notReady || key === '') toleratesNotReady = true;
        if (key === unreachable || key === '') toleratesUnreachable = true;
      }
      if (toleratesNotReady && toleratesUnreachable) return;
      const next = [...((current as unknown[] | null | undefined) ?? [])];
      if (!toleratesNotReady) next.push({ key: notReady, operator: 'Exists', effect: 'NoExecute', tolerationSeconds: notReadySeconds });
      if (!toleratesUnreachable) next.push({ key: unreachable, operator: 'Exists', effect: 'NoExecute', tolerationSeconds: unreachableSeconds });
      spec['tolerations'] = next;
    },
  };
}

export const defaultTolerationSecondsFactory: AdmissionPluginFactory = {
  name: 'DefaultTolerationSeconds',
  create: (deps) => defaultTolerationSeconds(deps.opts.defaultNotReadyTolerationSeconds, deps.opts.defaultUnreachableTolerationSeconds),
};
