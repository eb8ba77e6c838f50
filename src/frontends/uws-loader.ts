/**
 * Loads uWebSockets.js's native binary, or says once why it cannot.
 *
 * The package's own entry (src/uws.js) quietly falls back to a pure-JS
 * imitation when the binary does not load; that would leave us serving
 * through an emulation slower than node's own stack while believing we run
 * uWS. So we require the binary for this platform and Node ABI
 * (process.versions.modules) directly, and on failure return null: the
 * server then runs on the node front end alone.
 *
 * This build (uWebSockets v20.30) reads no environment variables: the
 * UWS_HTTP_MAX_HEADERS_SIZE / _COUNT knobs and the 400/431/505 answers of
 * later versions are not in it. Its parser limits are in the README.
 */
import { createRequire } from 'node:module';
import path from 'node:path';

export type UwsModule = typeof import('@trufflesuite/uws-js-unofficial');

export interface UwsLoaderOptions {
  /** The .node file to load; the package's binary for this platform and ABI by default. */
  binaryPath?: string;
  /** Gets the one "uWS unavailable: <reason>" message; console.warn by default. */
  log?: (message: string) => void;
}

const require = createRequire(import.meta.url);
const PACKAGE = '@trufflesuite/uws-js-unofficial';

/** Where the package keeps the binary for this process's platform, arch and ABI. */
export function defaultBinaryPath(): string {
  const root = path.dirname(require.resolve(`${PACKAGE}/package.json`));
  return path.join(root, 'binaries', `uws_${process.platform}_${process.arch}_${process.versions.modules}.node`);
}

/** A loader that tries once and reports a failure once; later calls return the same answer silently. */
export function createUwsLoader(opts: UwsLoaderOptions = {}): () => UwsModule | null {
  let result: UwsModule | null | undefined;
  return () => {
    if (result !== undefined) return result;
    try {
      result = loadBinary(opts.binaryPath ?? defaultBinaryPath());
    } catch (err) {
      result = null;
      const log = opts.log ?? ((message: string) => console.warn(message));
      log(`uWS unavailable: ${reason(err)}`);
    }
    return result;
  };
}

/** The process-wide loader: what the server's startup uses. */
export const loadUws: () => UwsModule | null = createUwsLoader();

function loadBinary(binaryPath: string): UwsModule {
  const mod = require(binaryPath) as Partial<UwsModule>;
  if (typeof mod.SSLApp !== 'function' || typeof mod.us_socket_local_port !== 'function') {
    throw new Error(`${binaryPath} is not a uWebSockets.js binary (no SSLApp)`);
  }
  return mod as UwsModule;
}

function reason(err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  // node's dlopen errors run over several lines; the first says it.
  return `${message.split('\n')[0]} (node ${process.version}, ABI ${process.versions.modules}, ${process.platform}-${process.arch})`;
}
