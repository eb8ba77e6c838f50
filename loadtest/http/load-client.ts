/**
 * The load generator, in its own process (pinned to its own core by the
 * benchmark) so the server under test has a core to itself. Runs warmup,
 * tells the parent when the measured window starts and ends, and reports.
 */
import { runH1 } from './h1-driver.ts';
import { runH2 } from './h2-driver.ts';
import type { ClientConfig, ClientMessage } from './protocol.ts';
import { Samples } from './stats.ts';

const config = JSON.parse(process.argv[2]!) as ClientConfig;
const send = (message: ClientMessage): void => {
  process.send!(message);
};

let measuring = false;
let running = true;
let errors = 0;
const samples = new Samples();
const record = (micros: number): void => {
  if (measuring) samples.add(micros);
};
const onError = (): void => {
  if (measuring) errors++;
};

try {
  const drive = config.protocol === 'h2' ? runH2 : runH1;
  const stop = await drive(config, record, onError, () => running);
  await new Promise((r) => setTimeout(r, config.warmupMs));
  send({ type: 'measure-start' });
  measuring = true;
  const start = performance.now();
  await new Promise((r) => setTimeout(r, config.measureMs));
  measuring = false;
  const seconds = (performance.now() - start) / 1000;
  running = false;
  const [p50, p99] = samples.percentiles(50, 99);
  send({ type: 'measure-end', result: { requests: samples.count, errors, seconds, p50Micros: p50!, p99Micros: p99! } });
  stop();
} catch (err) {
  send({ type: 'failed', error: String(err) });
}
process.disconnect?.();
