/**
 * The KMS plugin gRPC protocols, as the original's plugins speak them over a
 * unix socket: `v1beta1.KeyManagementService` (KMS v1) and
 * `v2alpha1.KeyManagementService` (KMS v2 in a v1.25-era server), plus KMS
 * v2's stored `EncryptedObject`. Messages are built with protobufjs from
 * the original .proto field numbers; the gRPC transport is @grpc/grpc-js.
 * Also used by the test KMS plugin, which serves the same definitions.
 */
import protobuf from 'protobufjs';
import type { ServiceDefinition } from '@grpc/grpc-js';

const root = protobuf.Root.fromJSON(<protobuf.INamespace>(<unknown>{
  // Map fields carry `keyType`, which protobufjs's INamespace typing does not list.
  nested: {
    v1beta1: {
      nested: {
        VersionRequest: { fields: { version: { type: 'string', id: 1 } } },
        VersionResponse: { fields: { version: { type: 'string', id: 1 }, runtimeName: { type: 'string', id: 2 }, runtimeVersion: { type: 'string', id: 3 } } },
        DecryptRequest: { fields: { version: { type: 'string', id: 1 }, cipher: { type: 'bytes', id: 2 } } },
        DecryptResponse: { fields: { plain: { type: 'bytes', id: 1 } } },
        EncryptRequest: { fields: { version: { type: 'string', id: 1 }, plain: { type: 'bytes', id: 2 } } },
        EncryptResponse: { fields: { cipher: { type: 'bytes', id: 1 } } },
      },
    },
    v2alpha1: {
      nested: {
        StatusRequest: { fields: {} },
        StatusResponse: { fields: { version: { type: 'string', id: 1 }, healthz: { type: 'string', id: 2 }, keyId: { type: 'string', id: 3 } } },
        DecryptRequest: {
          fields: { ciphertext: { type: 'bytes', id: 1 }, uid: { type: 'string', id: 2 }, keyId: { type: 'string', id: 3 }, annotations: { keyType: 'string', type: 'bytes', id: 4 } },
        },
        DecryptResponse: { fields: { plaintext: { type: 'bytes', id: 1 } } },
        EncryptRequest: { fields: { plaintext: { type: 'bytes', id: 1 }, uid: { type: 'string', id: 2 } } },
        EncryptResponse: { fields: { ciphertext: { type: 'bytes', id: 1 }, keyId: { type: 'string', id: 2 }, annotations: { keyType: 'string', type: 'bytes', id: 3 } } },
        EncryptedObject: {
          fields: { encryptedData: { type: 'bytes', id: 1 }, keyID: { type: 'string', id: 2 }, encryptedDEK: { type: 'bytes', id: 3 }, annotations: { keyType: 'string', type: 'bytes', id: 4 } },
        },
      },
    },
  },
}));

export type Message = Record<string, unknown>;

function type(name: string): protobuf.Type {
  return root.lookupType(name);
}

export function encodeMessage(name: string, value: Message): Buffer {
  const t = type(name);
  return Buffer.from(t.encode(t.fromObject(value)).finish());
}

export function decodeMessage(name: string, bytes: Uint8Array): Message {
  const t = type(name);
  return t.toObject(t.decode(bytes), { defaults: true, bytes: Buffer }) as Message;
}

type Rpc = { readonly name: string; readonly request: string; readonly response: string };

function service(pkg: string, rpcs: readonly Rpc[]): ServiceDefinition {
  const def: Record<string, unknown> = {};
  for (const r of rpcs) {
    def[r.name] = {
      path: `/${pkg}.KeyManagementService/${r.name}`,
      requestStream: false,
      responseStream: false,
      requestSerialize: (v: Message) => encodeMessage(`${pkg}.${r.request}`, v),
      requestDeserialize: (b: Buffer) => decodeMessage(`${pkg}.${r.request}`, b),
      responseSerialize: (v: Message) => encodeMessage(`${pkg}.${r.response}`, v),
      responseDeserialize: (b: Buffer) => decodeMessage(`${pkg}.${r.response}`, b),
    };
  }
  return def as ServiceDefinition;
}

export const KMS_V1_SERVICE = service('v1beta1', [
  { name: 'Version', request: 'VersionRequest', response: 'VersionResponse' },
  { name: 'Decrypt', request: 'DecryptRequest', response: 'DecryptResponse' },
  { name: 'Encrypt', request: 'EncryptRequest', response: 'EncryptResponse' },
]);

export const KMS_V2_SERVICE = service('v2alpha1', [
  { name: 'Status', request: 'StatusRequest', response: 'StatusResponse' },
  { name: 'Decrypt', request: 'DecryptRequest', response: 'DecryptResponse' },
  { name: 'Encrypt', request: 'EncryptRequest', response: 'EncryptResponse' },
]);
