/**
 * The server's structured logger: pino, one JSON object per line on stdout.
 *
 * Redaction is a safety net, not the policy: filters never pass headers or
 * bodies to the logger in the first place (see filters/with-logging.ts). The
 * list catches credentials that reach a log call by accident, e.g. a config
 * object or an error carrying a token, at the top level or one level down.
 */
import { pino } from 'pino';

export type Logger = pino.Logger;
export type LogLevel = pino.LevelWithSilent;
export type LogDestination = pino.DestinationStream;

export interface LoggerOptions {
  readonly level: LogLevel;
  /** Where lines go; stdout when absent. Tests pass an in-memory stream. */
  readonly destination?: LogDestination | undefined;
}

const SECRET_KEYS = [
  'authorization',
  'Authorization',
  'cookie',
  'token',
  'bearerToken',
  'password',
  'secret',
  'key',
  'privateKey',
  'clientKey',
  'client-key-data',
  'token-data',
];

/** `key`, `*.key`, and the header bag shapes loggers commonly receive. */
export const REDACT_PATHS: readonly string[] = [
  ...SECRET_KEYS.flatMap((k) => {
    const prop = /^[A-Za-z_$][\w$]*$/.test(k) ? k : `["${k}"]`;
    const child = prop.startsWith('[') ? `*${prop}` : `*.${prop}`;
    return [prop, child];
  }),
  'headers.authorization',
  'headers.cookie',
  '*.headers.authorization',
  '*.headers.cookie',
];

export function createLogger(options: LoggerOptions): Logger {
  // An async sonic-boom keeps per-request log writes off the hot path; pino
  // flushes it on process exit.
  const destination = options.destination ?? pino.destination({ dest: 1, sync: false });
  return pino(
    {
      level: options.level,
      base: undefined, // no pid/hostname on every line: the process is known from where the log is collected
      redact: { paths: [...REDACT_PATHS], censor: '[REDACTED]' },
      timestamp: pino.stdTimeFunctions.isoTime,
    },
    destination,
  );
}

/** Where `logger` writes its lines (front-end worker threads send theirs here, so one writer owns the output). */
export function logDestinationOf(logger: Logger): LogDestination {
  return (logger as unknown as Record<symbol, LogDestination>)[pino.symbols.streamSym]!;
}

/**
 * A destination that collects lines and hands them over once per event-loop
 * turn (a worker thread's lines travel to the main thread's destination in
 * one message per turn, not one per line).
 */
export function batchedDestination(send: (lines: string[]) => void): LogDestination {
  let lines: string[] = [];
  let scheduled = false;
  const flush = (): void => {
    scheduled = false;
    const out = lines;
    lines = [];
    if (out.length > 0) send(out);
  };
  return {
    write(line: string): void {
      lines.push(line);
      if (!scheduled) {
        scheduled = true;
        setImmediate(flush);
      }
    },
  };
}
