import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { processCpuSeconds } from './lib/memory.ts';
import { makeTempDir } from './lib/tmp.ts';
import { startApiServer, stopEverything } from './api/server.ts';
import { H1Client } from './api/client.ts';
import { runH2load } from './h2load/h2load.ts';
async function main(): Promise<void> {
  const dir = await makeTempDir('ab');
  const policy = '/tmp/aud/policy.yaml';
  for (const v of ['off', 'on', 'off', 'on']) {
    const args = v === 'off' ? [] : [`--audit-policy-file=${policy}`, `--audit-log-path=${join(dir, 'a.log')}`, '--audit-log-mode=batch'];
    const s = await startApiServer('embedded', null, args);
    const client = new H1Client('seed', s.securePort, s.ca, s.token, { maxSockets: 16 });
    await Promise.all(Array.from({ length: 200 }, (_, i) => client.request('POST', '/api/v1/namespaces/default/configmaps', Buffer.from(JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `au-${i}` }, data: { v: 'x'.repeat(1024) } })), true)));
    await client.close();
    const out: string[] = [];
    for (const [port, h1] of [[s.uwsPort, true], [s.securePort, false]] as const) {
      const uris = join(dir, `uris-${port}.txt`);
      await writeFile(uris, Array.from({ length: 200 }, (_, i) => `https://127.0.0.1:${port}/api/v1/namespaces/default/configmaps/au-${i}`).join('\n') + '\n');
      const run = { url: `https://127.0.0.1:${port}`, h1, clients: 32, method: 'GET' as const, inputFile: uris, token: s.token };
      await runH2load({ ...run, seconds: 2 });
      const c0 = processCpuSeconds(s.pid) ?? 0;
      const r = await runH2load({ ...run, seconds: 8 });
      const c1 = processCpuSeconds(s.pid) ?? 0;
      out.push(`${h1 ? 'uws' : 'h2'} ${Math.round(r.succeeded / r.seconds)}/s ${(((c1 - c0) * 1e6) / r.succeeded).toFixed(1)}µs`);
    }
    console.log(v, out.join('  '));
    await s.stop();
  }
  await stopEverything();
}
void main();
