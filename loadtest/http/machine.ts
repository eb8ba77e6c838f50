/** What the numbers were measured on. */
import { readFileSync } from 'node:fs';
import os from 'node:os';

export function machineDescription(): string {
  const cpus = os.cpus();
  const model = cpus[0]?.model.trim() ?? 'unknown CPU';
  return `${model}, ${cpus.length} cores, ${Math.round(os.totalmem() / 2 ** 30)} GiB, ${os.type()} ${os.release()}, Node ${process.version}`;
}

export function uwsVersion(): string {
  try {
    const pkg = JSON.parse(readFileSync(new URL('../../node_modules/@trufflesuite/uws-js-unofficial/package.json', import.meta.url), 'utf8')) as { version: string };
    return pkg.version;
  } catch {
    return 'unknown';
  }
}
