/**
 * Open connections of the node front end, so close() can end them: a closed
 * listener alone leaves keep-alive sockets and HTTP/2 sessions (watches among
 * them) open for as long as their clients like.
 */
import type { Http2SecureServer, ServerHttp2Session } from 'node:http2';
import type { Socket } from 'node:net';

export class ConnectionTracker {
  readonly #sockets = new Set<Socket>();
  readonly #sessions = new Set<ServerHttp2Session>();
  #allClosed: (() => void) | undefined;

  constructor(server: Http2SecureServer) {
    server.on('secureConnection', (socket: Socket) => {
      this.#sockets.add(socket);
      socket.once('close', () => {
        this.#sockets.delete(socket);
        if (this.#sockets.size === 0) this.#allClosed?.();
      });
    });
    server.on('session', (session: ServerHttp2Session) => {
      this.#sessions.add(session);
      session.once('close', () => this.#sessions.delete(session));
    });
  }

  /** GOAWAY to every HTTP/2 session: streams under way finish, new ones are refused. */
  goawayAll(): void {
    for (const session of this.#sessions) {
      if (!session.closed) session.close();
    }
  }

  /**
   * HTTP/2 sessions get a GOAWAY (streams under way may finish); after
   * `graceMs` whatever is still open is destroyed, which aborts the
   * requests on it.
   */
  async closeAll(graceMs: number): Promise<void> {
    for (const session of this.#sessions) {
      if (!session.closed) session.close();
    }
    if (graceMs > 0 && this.#sockets.size > 0) {
      let timer: NodeJS.Timeout | undefined;
      await new Promise<void>((resolve) => {
        this.#allClosed = resolve;
        timer = setTimeout(resolve, graceMs);
      });
      clearTimeout(timer);
      this.#allClosed = undefined;
    }
    for (const socket of this.#sockets) socket.destroy();
  }
}
