/**
 * How a benchmark script ends: its report written to a results file, and
 * its exit code when run directly (not imported by loadtest/run.ts).
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';

/** Writes the report's lines to `out` (creating its folder) and says where. */
export async function writeResults(out: string, lines: readonly string[]): Promise<void> {
  await mkdir(dirname(out), { recursive: true });
  await writeFile(out, lines.join('\n') + '\n');
  console.log(`\nwritten to ${out}`);
}

/** Runs `main` when the module at `moduleUrl` is the script node was started with; exits with its code. */
export function runAsScript(moduleUrl: string, main: () => Promise<number>): void {
  if (moduleUrl !== `file://${process.argv[1]}`) return;
  main().then(
    (code) => process.exit(code),
    (err: unknown) => {
      console.error(err);
      process.exit(1);
    },
  );
}
