/**
 * Entry point: `npm start -- <flags>`. Fixes the API flavor, parses flags,
 * starts the server, and shuts it down cleanly on SIGINT/SIGTERM.
 *
 * The flavor is read first and put in the environment (which worker threads
 * inherit) before the server's modules load: they build their names from the
 * naming table when imported. Hence the dynamic imports below.
 */
import { API_FLAVOR_ENV, DEFAULT_API_FLAVOR, apiFlavorFromArgv, isApiFlavor } from './naming/flavor.ts';
import type { LogLevel } from './server/logging.ts';

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  const flavor = apiFlavorFromArgv(argv) ?? DEFAULT_API_FLAVOR;
  // An invalid value is left for the flag parser to report with the others.
  process.env[API_FLAVOR_ENV] = isApiFlavor(flavor) ? flavor : DEFAULT_API_FLAVOR;
  const { parseArgs, usage, OptionsError } = await import('./server/options.ts');
  const { createLogger } = await import('./server/logging.ts');
  const { startServer } = await import('./server/server.ts');
  if (argv.includes('--help') || argv.includes('-h')) {
    process.stdout.write(`orch-apiserver flags:\n${usage()}\n`);
    return;
  }
  let opts;
  try {
    opts = parseArgs(argv);
  } catch (err) {
    if (err instanceof OptionsError) {
      process.stderr.write(`error: ${err.message}\nRun with --help for the list of flags.\n`);
      process.exit(2);
    }
    throw err;
  }
  const logger = createLogger({ level: opts.logLevel as LogLevel });
  // Signals are heard from here on, as the original sets its handler first: one that comes while the
  // server starts is acted on once it has started (a second one still ends the process at once).
  let server: Awaited<ReturnType<typeof startServer>> | undefined;
  let stopping = false;
  const stop = (signal: string): void => {
    if (stopping) {
      logger.warn({ signal }, 'second signal: exiting without finishing the graceful shutdown');
      process.exit(1);
    }
    stopping = true;
    logger.info({ signal }, 'shutting down');
    if (server === undefined) return; // the start finishes first, then shuts down
    server.shutdown().then(
      () => process.exit(0),
      (err: unknown) => {
        logger.error({ err: err instanceof Error ? err.message : String(err) }, 'graceful shutdown failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
  try {
    server = await startServer(opts, logger);
  } catch (err) {
    if (err instanceof OptionsError) {
      process.stderr.write(`error: ${err.message}\n`);
      process.exit(2);
    }
    // An operator's problem (a port in use, a data dir it cannot read, a damaged
    // store) gets one line; the stack goes to the log at debug level only.
    logger.debug({ err }, 'start failed');
    process.stderr.write(`orch-apiserver failed to start: ${startFailure(err)}\n`);
    process.exit(1);
  }
  if (stopping) {
    stopping = false;
    stop('signal received while starting');
  }
}

/** One line for an error that stopped the start: the message, with the system error code when there is one. */
function startFailure(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  const code = (err as NodeJS.ErrnoException).code;
  return code !== undefined && !err.message.includes(code) ? `${err.message} (${code})` : err.message;
}

main().catch((err: unknown) => {
  process.stderr.write(`orch-apiserver failed to start: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
