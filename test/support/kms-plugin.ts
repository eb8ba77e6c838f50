/**
 * A real KMS plugin process for tests: a gRPC server on a unix socket
 * speaking `v2alpha1.KeyManagementService` and `v1beta1.KeyManagementService`
 * as the original's plugins do, sealing data keys with its own AES-256-GCM
 * key (which never leaves this process).
 *
 *   node --import tsx test/support/kms-plugin.ts <socket path> [key id]
 *
 * Prints `ready` when it listens; counts calls on stdout lines `calls <n>` on SIGUSR2.
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import grpc from '@grpc/grpc-js';
import { KMS_V1_SERVICE, KMS_V2_SERVICE, type Message } from '../../src/storage/encryption/kms-protocol.ts';

const [socket, keyId = 'key-1'] = process.argv.slice(2);
if (socket === undefined) throw new Error('usage: kms-plugin.ts <socket> [key id]');
const kek = randomBytes(32);
let calls = 0;

function seal(plain: Buffer): Buffer {
  const nonce = randomBytes(12);
  const c = createCipheriv('aes-256-gcm', kek, nonce);
  const body = Buffer.concat([c.update(plain), c.final()]);
  return Buffer.concat([nonce, body, c.getAuthTag()]);
}

function open(sealed: Buffer): Buffer {
  const d = createDecipheriv('aes-256-gcm', kek, sealed.subarray(0, 12));
  d.setAuthTag(sealed.subarray(sealed.length - 16));
  return Buffer.concat([d.update(sealed.subarray(12, sealed.length - 16)), d.final()]);
}

type Handler = (call: { request: Message }, cb: (err: grpc.ServiceError | null, res?: Message) => void) => void;
const unary =
  (f: (req: Message) => Message): Handler =>
  (call, cb) => {
    calls++;
    try {
      cb(null, f(call.request));
    } catch (err) {
      cb({ name: 'Error', message: String(err), code: grpc.status.INVALID_ARGUMENT, details: 'cannot decrypt', metadata: new grpc.Metadata() });
    }
  };

const server = new grpc.Server();
server.addService(KMS_V2_SERVICE, {
  Status: unary(() => ({ version: 'v2alpha1', healthz: 'ok', keyId })),
  Encrypt: unary((req) => ({ ciphertext: seal(req['plaintext'] as Buffer), keyId, annotations: { 'kms.example.com/sealed-by': Buffer.from('test-plugin') } })),
  Decrypt: unary((req) => ({ plaintext: open(req['ciphertext'] as Buffer) })),
} as unknown as grpc.UntypedServiceImplementation);
server.addService(KMS_V1_SERVICE, {
  Version: unary(() => ({ version: 'v1beta1', runtimeName: 'test-plugin', runtimeVersion: '0.1.0' })),
  Encrypt: unary((req) => ({ cipher: seal(req['plain'] as Buffer) })),
  Decrypt: unary((req) => ({ plain: open(req['cipher'] as Buffer) })),
} as unknown as grpc.UntypedServiceImplementation);

fs.rmSync(socket, { force: true });
server.bindAsync(`unix://${socket}`, grpc.ServerCredentials.createInsecure(), (err) => {
  if (err !== null) {
    console.error(err.message);
    process.exit(1);
  }
  process.stdout.write('ready\n');
});
process.on('SIGUSR2', () => process.stdout.write(`calls ${calls}\n`));
process.on('SIGTERM', () => server.tryShutdown(() => process.exit(0)));
