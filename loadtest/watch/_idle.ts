import { startApiServer } from '../api/server.ts';
import https from 'node:https';
const s = await startApiServer('embedded', null);
for (const [label, port] of [['uws', s.uwsPort], ['secure', s.securePort]] as const) {
  const agent = new https.Agent({ keepAlive: true, maxSockets: 1, ca: s.ca });
  const t0 = Date.now();
  await new Promise<void>((res) => https.get({ host: '127.0.0.1', port, path: '/version', agent, headers: { authorization: `Bearer ${s.token}` } }, (r) => { r.resume(); r.on('end', () => res()); }));
  const sock = Object.values(agent.freeSockets).flat()[0]!;
  const closed = await new Promise<string>((res) => { sock.on('close', () => res(`closed by the server after ${Date.now() - t0} ms idle`)); setTimeout(() => res('still open after 130 s'), 130000); });
  console.log(label, closed);
  agent.destroy();
}
await s.stop();
process.exit(0);
