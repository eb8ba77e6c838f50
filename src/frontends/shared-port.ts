/**
 * How several serving threads listen on one port with node's servers (the
 * secure port: node:http2 with HTTP/1.1): each thread its own socket bound with
 * SO_REUSEPORT, the kernel spreading connections between them, as uWS does on
 * its own port.
 *
 * Node asks for SO_REUSEPORT itself from 22.12 / 23.1 (`listen({ reusePort })`).
 * Before that (Node 20, the one uWS runs on) the small addon in src/frontends/native/reuseport
 * (built by `npm install`, an optional dependency) makes the listening socket
 * and net's `listen({ fd })` takes it over; each thread's server owns and closes
 * its own descriptor. Without either, the main thread serves the port alone.
 */
import { createRequire } from 'node:module';
import type { ListenOptions, Server } from 'node:net';

interface ReusePortAddon {
  /** A listening TCP socket on host:port with SO_REUSEADDR and SO_REUSEPORT; `exclusive` first checks nobody else listens there. */
  listen(host: string, port: number, backlog: number, exclusive: boolean): number;
}

/** Node's own listen backlog. */
const BACKLOG = 511;

/** Whether node's net module sets SO_REUSEPORT itself (`listen({ reusePort })`). */
export function nodeReusePortSupported(version = process.versions.node): boolean {
  const [major = 0, minor = 0] = version.split('.').map(Number);
  return major >= 24 || (major === 23 && minor >= 1) || (major === 22 && minor >= 12);
}

let addon: ReusePortAddon | null | undefined;

/** The addon, when it was built and loads here (ORCH_NO_REUSEPORT_ADDON=1 leaves it out: the one-thread shape). */
function reusePortAddon(): ReusePortAddon | null {
  if (addon === undefined) {
    addon = null;
    if (process.env['ORCH_NO_REUSEPORT_ADDON'] !== '1') {
      try {
        addon = createRequire(import.meta.url)('orch-reuseport') as ReusePortAddon;
      } catch {
        // Not built (no compiler at install, or another platform): the main thread serves the port alone.
      }
    }
  }
  return addon;
}

/** How node's servers can share a port between threads here: node itself, the addon, or not at all. */
export function sharedPortMethod(): 'node' | 'addon' | null {
  if (nodeReusePortSupported()) return 'node';
  return reusePortAddon() !== null ? 'addon' : null;
}

/**
 * Listen options for one thread's server on a port several threads share.
 * `first`: the thread that opens the port (the main thread); a port someone else
 * already listens on is refused (EADDRINUSE) rather than shared with them.
 */
export function sharedListenOptions(host: string, port: number, first: boolean): ListenOptions | { fd: number } {
  const method = sharedPortMethod();
  if (method === 'node') return { host, port, reusePort: true } as ListenOptions;
  if (method === 'addon') return { fd: reusePortAddon()!.listen(host, port, BACKLOG, first) };
  throw new Error(`Node ${process.versions.node} cannot share a port between threads (no reusePort, and the orch-reuseport addon is not built)`);
}

/**
 * Starts `server` listening on `host`:`port`, alone or (`sharePort`) on a port
 * the serving threads share, `'first'` for the thread that opens it; rejects
 * with the listen error (EADDRINUSE and the like).
 */
export function listenOn(server: Server, host: string, port: number, sharePort: 'first' | 'join' | undefined): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    const listenOptions = sharePort === undefined ? { port, host } : sharedListenOptions(host, port, sharePort === 'first');
    server.listen(listenOptions, () => {
      server.off('error', reject);
      resolve();
    });
  });
}
