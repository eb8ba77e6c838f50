// Piscina entry shim: registers the TypeScript loader in this worker thread,
// then re-exports the default task function of the TypeScript module named
// in workerData.entry. (On Node 20 the --import hook of the main thread does
// not reliably cover modules a worker imports later.)
import { workerData } from 'node:worker_threads';
import { register } from 'tsx/esm/api';

register();
const mod = await import(workerData.entry);
export default mod.default;
