/** Runs support/parts-server.ts in a child process and asks it for measurements. */
import type { ChildProcess } from 'node:child_process';
import { fork } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import type { Measurement } from './parts-server.ts';

export interface ChildServer {
  readonly port: number;
  /** The child's RSS and what it knows of response `id`; `gc` collects garbage first. */
  measure(id?: string, gc?: boolean): Promise<Measurement>;
  stop(): Promise<void>;
}

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
const ENTRY = fileURLToPath(new URL('./parts-server.ts', import.meta.url));

/** `node-js`: the node front end on the js HTTP/2 engine. */
export async function startChildServer(kind: 'uws' | 'node' | 'node-js', certFile: string, keyFile: string): Promise<ChildServer> {
  const child: ChildProcess = fork(ENTRY, [kind, certFile, keyFile], {
    cwd: ROOT,
    execArgv: ['--import', 'tsx', '--expose-gc'],
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  const exited = once(child, 'exit');
  const [first] = (await Promise.race([once(child, 'message'), exited.then(() => Promise.reject(new Error('the server process exited')))])) as [
    { port: number },
  ];
  let queue = Promise.resolve<unknown>(undefined);
  return {
    port: first.port,
    measure(id, gc = false) {
      // One question at a time: answers come back in order.
      const answer = queue.then(async () => {
        const reply = once(child, 'message');
        child.send({ id, gc });
        return ((await reply) as [Measurement])[0];
      });
      queue = answer.catch(() => undefined);
      return answer;
    },
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.disconnect();
      const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
      await exited;
      clearTimeout(timer);
    },
  };
}
