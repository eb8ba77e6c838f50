/**
 * Entry point: `npm start -- <flags>`. Parses flags, starts the server, and
 * shuts it down cleanly on SIGINT/SIGTERM.
 */
import { parseArgs, usage, OptionsError } from './server/options.ts';
import { createLogger, type LogLevel } from './server/logging.ts';
import { startServer } from './server/server.ts';

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
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
  let server;
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
  let stopping = false;
  const stop = (signal: string): void => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down');
    const delay = opts.shutdownDelayMs;
    server.health.markShuttingDown();
    setTimeout(() => {
      server.close().then(
        () => process.exit(0),
        () => process.exit(1),
      );
    }, delay).unref();
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
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
