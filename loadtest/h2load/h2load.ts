/**
 * One h2load run (nghttp2's C load generator) and its figures, parsed from
 * its report. A run is bounded in time (`-D`) or in requests (`-n`).
 */
import { execFile } from 'node:child_process';

export interface H2loadRun {
  /** https://127.0.0.1:<port>: the requests go to `path` (or the URIs of `inputFile`). */
  readonly url: string;
  readonly path?: string;
  /** Force HTTP/1.1 (the uWS listener speaks nothing else). */
  readonly h1: boolean;
  readonly token: string;
  readonly clients: number;
  readonly method: 'GET' | 'POST';
  /** Body of every request (POST). */
  readonly dataFile?: string;
  /** One URI per line; h2load cycles through them. */
  readonly inputFile?: string;
  readonly seconds?: number;
  readonly requests?: number;
}

export interface H2loadResult {
  readonly seconds: number;
  readonly succeeded: number;
  readonly failed: number;
  readonly non2xx: number;
  readonly raw: string;
}

export function runH2load(run: H2loadRun): Promise<H2loadResult> {
  const args = ['-c', String(run.clients), '-m', '1', '-t', '1', '-H', `authorization: Bearer ${run.token}`, '-H', 'accept: application/json'];
  if (run.h1) args.push('--h1');
  if (run.method === 'POST') args.push('-H', 'content-type: application/json');
  if (run.dataFile) args.push('-d', run.dataFile);
  if (run.inputFile) args.push('-i', run.inputFile);
  if (run.seconds !== undefined) args.push('-D', String(run.seconds));
  else args.push('-n', String(run.requests ?? 1));
  if (!run.inputFile) args.push(`${run.url}${run.path ?? '/'}`);
  const limitMs = ((run.seconds ?? 30) + 30) * 1000;
  return new Promise((resolve, reject) => {
    execFile('h2load', args, { timeout: limitMs, maxBuffer: 16 * 1024 * 1024 }, (err, stdout, stderr) => {
      const raw = `${stdout}\n${stderr}`;
      const finished = /finished in ([\d.]+)(m?s)/.exec(raw);
      const requests = /requests: (\d+) total, (\d+) started, (\d+) done, (\d+) succeeded, (\d+) failed, (\d+) errored/.exec(raw);
      const codes = /status codes: (\d+) 2xx, (\d+) 3xx, (\d+) 4xx, (\d+) 5xx/.exec(raw);
      if (!finished || !requests || !codes) {
        reject(new Error(`h2load gave no report${err ? ` (${err.message})` : ''}:\n${raw.slice(-600)}`));
        return;
      }
      const seconds = Number(finished[1]) / (finished[2] === 'ms' ? 1000 : 1);
      const twoxx = Number(codes[1]);
      resolve({
        seconds,
        succeeded: twoxx,
        failed: Number(requests[5]) + Number(requests[6]),
        non2xx: Number(codes[2]) + Number(codes[3]) + Number(codes[4]),
        raw,
      });
    });
  });
}
