/**
 * Campaign settings from the environment (and, for the long runner, from
 * `--runs=`, `--seed=`, `--path=` arguments): FUZZ_RUNS, FUZZ_SEED,
 * FUZZ_PATH (replay one case from a failure report), FUZZ_SHRINK=1, and the
 * HTTP shares FUZZ_NODE_SHARE / FUZZ_UWS_SHARE (fractions of all cases).
 */
export interface FuzzSettings {
  readonly runs: number;
  readonly seed: number;
  readonly path: string | undefined;
  readonly shrink: boolean;
  readonly httpShare: { readonly node: number; readonly uws: number };
}

function argOrEnv(args: readonly string[], name: string, env: string): string | undefined {
  const flag = args.find((a) => a.startsWith(`--${name}=`));
  return flag !== undefined ? flag.slice(name.length + 3) : process.env[env];
}

function number(value: string | undefined, fallback: number, what: string): number {
  if (value === undefined || value === '') return fallback;
  const n = Number(value);
  if (!Number.isFinite(n) || n < 0) throw new Error(`${what} must be a non-negative number, got ${JSON.stringify(value)}`);
  return n;
}

export function fuzzSettings(defaults: { runs: number; node: number; uws: number; seed?: number }, args: readonly string[] = []): FuzzSettings {
  // The given seed, else the caller's fixed one (npm test: the same cases every run, so a red CI is a
  // regression, not a new draw), else a fresh one (long runs explore); always printed for replay.
  const seed = Math.trunc(number(argOrEnv(args, 'seed', 'FUZZ_SEED'), defaults.seed ?? Date.now() % 2 ** 31, 'FUZZ_SEED'));
  return {
    runs: Math.trunc(number(argOrEnv(args, 'runs', 'FUZZ_RUNS'), defaults.runs, 'FUZZ_RUNS')),
    seed,
    path: argOrEnv(args, 'path', 'FUZZ_PATH') || undefined,
    shrink: argOrEnv(args, 'shrink', 'FUZZ_SHRINK') === '1',
    httpShare: {
      node: number(argOrEnv(args, 'node-share', 'FUZZ_NODE_SHARE'), defaults.node, 'FUZZ_NODE_SHARE'),
      uws: number(argOrEnv(args, 'uws-share', 'FUZZ_UWS_SHARE'), defaults.uws, 'FUZZ_UWS_SHARE'),
    },
  };
}
