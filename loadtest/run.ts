/**
 * `npm run bench` (node --import tsx loadtest/run.ts): the API benchmark with
 * the Node client (loadtest/api/run.ts; flags pass through:
 * --only=embedded|etcd3, --out=...), then the same server under h2load
 * (loadtest/h2load/run.ts; skipped with a message when h2load is not
 * installed), static vs service-account tokens under h2load
 * (loadtest/h2load/tokens.ts), the RBAC decision benchmark
 * (loadtest/rbac/decisions.ts), then how to run the other benchmarks.
 */
import { runApiBench } from './api/run.ts';
import { runH2loadBench } from './h2load/run.ts';
import { runTokenBench } from './h2load/tokens.ts';
import { printRbacBench, runRbacBench } from './rbac/decisions.ts';

const OTHERS: ReadonlyArray<[string, string]> = [
  ['npm run bench:storage', 'storage layer: creates, LIST from the watch cache, watch fan-out, shard round trip, memory (loadtest/results/storage.md)'],
  ['node --import tsx loadtest/http/frontends.ts', 'front ends alone: requests/s of a trivial handler on uWS and node:http2'],
  ['node --import tsx loadtest/micro/protobuf-pod.ts', 'Protobuf encode/decode of a typical Pod (µs per call)'],
  ['node --import tsx loadtest/micro/authn-methods.ts', 'one authentication decision per method with warm caches (static, bootstrap, request header), impersonation parsing (µs per call)'],
  ['node --import tsx loadtest/http/authn-tokens.ts', 'requests/s on the secure port with a static token, a bootstrap token and through the authenticating proxy'],
  ['node --import tsx loadtest/micro/quota-admission.ts', 'LimitRanger and ResourceQuota per create: a namespace without either (the early return), one LimitRange, three quotas (µs per call)'],
  ['node --import tsx loadtest/micro/apply-deployment.ts', 'server-side apply and update of a 3 KiB Deployment with three managers (µs per call)'],
  ['node --import tsx loadtest/h2load/run.ts --original=/path/to/kube-apiserver', 'ours beside the original API server v1.25 + etcd, interleaved, ratios; LIST of 50k (loadtest/results/vs-original.md)'],
  ['node --import tsx loadtest/list50k/run.ts [--original=...]', 'LIST of 50,000 1 KiB ConfigMaps, curl to the last byte, consistent and resourceVersion=0'],
];

const only = process.argv.slice(2).filter((a) => a.startsWith('--only='));
let code = await runApiBench(process.argv.slice(2));
if (code === 0) code = await runH2loadBench(only);
if (code === 0 && only.every((a) => a === '--only=embedded')) code = await runTokenBench();
// RBAC decisions in-process (loadtest/rbac/decisions.ts): a few seconds.
console.log('');
printRbacBench(runRbacBench());
console.log('\nOther benchmarks (not run by `npm run bench`):');
for (const [cmd, what] of OTHERS) console.log(`  ${cmd}\n      ${what}`);
process.exit(code);
