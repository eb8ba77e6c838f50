/**
 * Random frames against the js HTTP/2 engine: after a valid preface and
 * SETTINGS, each connection sends a seeded mix of well-formed requests and
 * frames with random types, flags, stream ids, lengths and payloads (HPACK
 * garbage among them). Whatever the engine makes of them, the process must
 * not throw, every connection must end or keep answering, and a fresh
 * connection must still be served.
 */
import assert from 'node:assert/strict';
import http2 from 'node:http2';
import tls from 'node:tls';
import { after, before, describe, it } from 'node:test';
import type { Frontend } from '../../../src/frontends/node-http2.ts';
import { startNodeFrontend } from '../../../src/frontends/node-http2.ts';
import type { TestPki } from '../support/certs.ts';
import { makeTestPki } from '../support/certs.ts';
import { frame, PREFACE, requestBlock, settingsFrame } from '../support/h2-raw.ts';
import { seededRandom } from '../../support/seeded-random.ts';

function randomFrames(rand: () => number, count: number): Buffer {
  const frames: Buffer[] = [];
  let nextStream = 1;
  const int = (n: number): number => Math.floor(rand() * n);
  for (let i = 0; i < count; i++) {
    const roll = rand();
    if (roll < 0.3) {
      // A well-formed GET, sometimes with its body half.
      const flags = rand() < 0.8 ? 0x5 : 0x4;
      frames.push(frame(0x1, flags, nextStream, requestBlock(rand() < 0.5 ? 'GET' : 'POST', `/fuzz/${i}`)));
      nextStream += 2;
    } else if (roll < 0.45) {
      // DATA on some stream, maybe ending it.
      frames.push(frame(0x0, int(2) | (rand() < 0.1 ? 0x8 : 0), int(nextStream + 2), Buffer.alloc(int(3000), int(256))));
    } else if (roll < 0.55) {
      // A header block of random bytes (HPACK garbage).
      const bytes = Buffer.alloc(int(64));
      for (let j = 0; j < bytes.length; j++) bytes[j] = int(256);
      frames.push(frame(0x1, int(64), nextStream, bytes));
      nextStream += 2;
    } else {
      // Any frame at all: type 0-11, any flags, a nearby stream id, a short random payload.
      const payload = Buffer.alloc(int(24));
      for (let j = 0; j < payload.length; j++) payload[j] = int(256);
      frames.push(frame(int(12), int(256), rand() < 0.3 ? 0 : int(nextStream + 4), payload));
    }
  }
  return Buffer.concat(frames);
}

describe('js HTTP/2 engine: random frames', () => {
  let pki: TestPki;
  let frontend: Frontend;
  const errors: unknown[] = [];

  before(async () => {
    pki = await makeTestPki();
    frontend = await startNodeFrontend({
      host: '127.0.0.1',
      port: 0,
      tls: { cert: pki.serverCertPem, key: pki.serverKeyPem },
      http2Engine: 'js',
      timeouts: { idleMs: 2000, headerReadMs: 2000 },
      onError: (err) => errors.push(err),
      handler: (req, res) => {
        const answer = (): void => {
          res.writeHead(200, { 'content-type': 'text/plain' });
          res.end('fuzz');
        };
        if (req.method !== 'POST') {
          answer();
          return undefined;
        }
        return req.body(1 << 20).then(answer, () => answer());
      },
    });
  });

  after(async () => {
    await frontend.close();
    await pki.cleanup();
  });

  it('survives 200 connections of seeded random frames and still serves a fresh client', async () => {
    const uncaught: unknown[] = [];
    const onUncaught = (err: unknown): void => {
      uncaught.push(err);
    };
    process.on('uncaughtException', onUncaught);
    // The engine reports its own faults (an exception while reading a connection) on the console.
    const consoleError = console.error;
    const internal: unknown[][] = [];
    console.error = (...args: unknown[]): void => {
      internal.push(args);
    };
    try {
      for (let batch = 0; batch < 10; batch++) {
        await Promise.all(
          Array.from({ length: 20 }, async (_, k) => {
            const seed = 26_000 + batch * 20 + k;
            const rand = seededRandom(seed);
            const socket = tls.connect({ host: '127.0.0.1', port: frontend.port, ca: pki.serverCaPem, ALPNProtocols: ['h2'], servername: 'localhost' });
            socket.on('error', () => {});
            socket.on('data', () => {});
            await new Promise<void>((resolve) => socket.once('secureConnect', () => resolve()).once('error', () => resolve()));
            socket.write(Buffer.concat([PREFACE, settingsFrame([]), randomFrames(rand, 40)]));
            // Ended by the server (a connection error) or, at worst, by us after a moment.
            await new Promise<void>((resolve) => {
              const timer = setTimeout(() => {
                socket.destroy();
                resolve();
              }, 300);
              socket.once('close', () => {
                clearTimeout(timer);
                resolve();
              });
            });
          }),
        );
      }
    } finally {
      process.off('uncaughtException', onUncaught);
      console.error = consoleError;
    }
    assert.deepEqual(uncaught, []);
    assert.deepEqual(internal, [], 'no fault inside the engine');
    assert.deepEqual(errors, [], 'no error escaped a handler');
    const session = http2.connect(`https://127.0.0.1:${frontend.port}`, { ca: pki.serverCaPem });
    session.on('error', () => {});
    try {
      const body = await new Promise<string>((resolve, reject) => {
        const req = session.request({ ':path': '/after' });
        let text = '';
        req.setEncoding('utf8');
        req.on('data', (c: string) => (text += c));
        req.on('end', () => resolve(text));
        req.on('error', reject);
        req.end();
      });
      assert.equal(body, 'fuzz');
    } finally {
      session.close();
    }
  });
});
