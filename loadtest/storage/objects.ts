/**
 * 1 KiB ConfigMaps in the stored layout (see serializeForStorage), made fast:
 * one template per namespace, with the name's digits written in place.
 */
import { configMapBytes } from '../../test/support/shard-fixtures.ts';

export const OBJECT_BYTES = 1024;
const DIGITS = 8;

export const objectName = (i: number): string => `o${String(i).padStart(DIGITS, '0')}`;

/** Makes the stored bytes of ConfigMap `o<i>` in `namespace`, exactly OBJECT_BYTES long. */
export class ObjectFactory {
  readonly #template: Uint8Array;
  readonly #digitsAt: number;
  readonly namespace: string;

  constructor(namespace: string) {
    this.namespace = namespace;
    const probeName = objectName(0);
    const base = configMapBytes(namespace, probeName, { pad: '' }).byteLength;
    if (base > OBJECT_BYTES) throw new Error(`namespace ${namespace} is too long for ${OBJECT_BYTES}-byte objects`);
    this.#template = configMapBytes(namespace, probeName, { pad: 'x'.repeat(OBJECT_BYTES - base) });
    const marker = Buffer.from(`"name":"${probeName}"`);
    const at = Buffer.from(this.#template).indexOf(marker);
    if (at < 0) throw new Error('name not found in the ConfigMap template');
    this.#digitsAt = at + '"name":"o'.length;
  }

  /** The key of object i under `prefix` (e.g. `/configmaps/`). */
  key(prefix: string, i: number): string {
    return `${prefix}${this.namespace}/${objectName(i)}`;
  }

  bytes(i: number): Uint8Array {
    const out = new Uint8Array(this.#template);
    let n = i;
    for (let d = DIGITS - 1; d >= 0; d--) {
      out[this.#digitsAt + d] = 0x30 + (n % 10);
      n = Math.floor(n / 10);
    }
    return out;
  }
}
