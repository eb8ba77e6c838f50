/**
 * The API flavor: which product's names the server speaks. `orch` is the
 * spec's own (the default); `kubernetes` speaks the original's names so that
 * programs with those names compiled in (kubectl's typed commands, client-go
 * controllers, client-node) run unchanged. One flavor per process: it is fixed
 * before any module that builds names is loaded, through an environment
 * variable that worker threads inherit.
 */
export const API_FLAVORS = ['orch', 'kubernetes'] as const;
export type ApiFlavor = (typeof API_FLAVORS)[number];
export const DEFAULT_API_FLAVOR: ApiFlavor = 'orch';

/** Carries the process's flavor to every module and worker thread. */
export const API_FLAVOR_ENV = 'ORCH_APISERVER_API_FLAVOR';

/** The command-line flag that chooses the flavor. */
export const API_FLAVOR_FLAG = '--api-flavor';

export function isApiFlavor(value: string): value is ApiFlavor {
  return (API_FLAVORS as readonly string[]).includes(value);
}

export class ApiFlavorError extends Error {
  override name = 'ApiFlavorError';
}

/** The flavor fixed for this process: the environment's, else the default. */
export function processApiFlavor(env: NodeJS.ProcessEnv = process.env): ApiFlavor {
  const raw = env[API_FLAVOR_ENV];
  if (raw === undefined || raw === '') return DEFAULT_API_FLAVOR;
  if (!isApiFlavor(raw)) throw new ApiFlavorError(`${API_FLAVOR_ENV}=${raw} is not one of ${API_FLAVORS.join(', ')}`);
  return raw;
}

/**
 * The value of `--api-flavor` in argv (`--api-flavor=x` or `--api-flavor x`),
 * or undefined when absent. Read before the server loads; the full flag
 * parser checks it again.
 */
export function apiFlavorFromArgv(argv: readonly string[]): string | undefined {
  let found: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? '';
    if (arg === API_FLAVOR_FLAG) found = argv[i + 1] ?? '';
    else if (arg.startsWith(`${API_FLAVOR_FLAG}=`)) found = arg.slice(API_FLAVOR_FLAG.length + 1);
  }
  return found;
}
