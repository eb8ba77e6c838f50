/**
 * The node authorizer's graph (after the original's plugin/pkg/auth/
 * authorizer/node/graph.go), kept as reference counts rather than vertices:
 *
 *   pod (with spec.nodeName) -> node
 *   secret, config map, PVC, service account -> the pods naming them
 *   PV (spec.claimRef) -> PVC;  PV's kubelet-visible secrets -> PV
 *   volume attachment -> its spec.nodeName
 *
 * A node reaches an object when a path leads from the object to the node.
 * Every pod adds one count per object it names to its node's table, so a
 * question is one or two map lookups, and a pod's update or deletion
 * removes exactly what it added. Fed by watch events only (index.ts).
 */
import type { KObject } from '../../registry/object.ts';
import { podRefs, pvRefs, type PodRefs, type PvRefs } from './refs.ts';

export type VertexType = 'secret' | 'configmap' | 'pvc' | 'pv' | 'serviceaccount' | 'volumeattachment';

interface PodEntry {
  readonly nodeName: string;
  readonly keys: readonly string[];
}

function key(type: string, namespace: string, name: string): string {
  return `${type}\u0000${namespace}\u0000${name}`;
}

function objectKey(o: KObject): string {
  return `${o.metadata.namespace ?? ''}/${o.metadata.name ?? ''}`;
}

export class NodeGraph {
  /** Pod `ns/name` -> its node and the keys it counted there. */
  readonly #pods = new Map<string, PodEntry>();
  /** Node name -> object key -> how many of its pods name it. */
  readonly #reach = new Map<string, Map<string, number>>();
  /** PV name -> its claim and secrets. */
  readonly #pvs = new Map<string, PvRefs>();
  /** Secret `ns/name` -> the PVs naming it. */
  readonly #pvsBySecret = new Map<string, Set<string>>();
  /** Volume attachment name -> node name. */
  readonly #attachments = new Map<string, string>();

  get podCount(): number {
    return this.#pods.size;
  }

  /** Adds or replaces a pod; a pod without a node is only removed. */
  setPod(pod: KObject): void {
    const id = objectKey(pod);
    this.deletePod(id);
    const refs: PodRefs = podRefs(pod);
    if (refs.nodeName === '') return;
    const ns = pod.metadata.namespace ?? '';
    const keys: string[] = [];
    for (const s of refs.secrets) keys.push(key('secret', ns, s));
    for (const c of refs.configMaps) keys.push(key('configmap', ns, c));
    for (const c of refs.claims) keys.push(key('pvc', ns, c));
    if (refs.serviceAccount !== '') keys.push(key('serviceaccount', ns, refs.serviceAccount));
    let table = this.#reach.get(refs.nodeName);
    if (table === undefined) {
      table = new Map();
      this.#reach.set(refs.nodeName, table);
    }
    for (const k of keys) table.set(k, (table.get(k) ?? 0) + 1);
    this.#pods.set(id, { nodeName: refs.nodeName, keys });
  }

  /** Removes a pod by `namespace/name`. */
  deletePod(id: string): void {
    const entry = this.#pods.get(id);
    if (entry === undefined) return;
    this.#pods.delete(id);
    const table = this.#reach.get(entry.nodeName);
    if (table === undefined) return;
    for (const k of entry.keys) {
      const n = (table.get(k) ?? 0) - 1;
      if (n > 0) table.set(k, n);
      else table.delete(k);
    }
    if (table.size === 0) this.#reach.delete(entry.nodeName);
  }

  setPv(pv: KObject): void {
    const name = pv.metadata.name ?? '';
    this.deletePv(name);
    const refs = pvRefs(pv);
    if (refs.claim === '') return;
    this.#pvs.set(name, refs);
    for (const s of refs.secrets) {
      let set = this.#pvsBySecret.get(s);
      if (set === undefined) {
        set = new Set();
        this.#pvsBySecret.set(s, set);
      }
      set.add(name);
    }
  }

  deletePv(name: string): void {
    const refs = this.#pvs.get(name);
    if (refs === undefined) return;
    this.#pvs.delete(name);
    for (const s of refs.secrets) {
      const set = this.#pvsBySecret.get(s);
      set?.delete(name);
      if (set?.size === 0) this.#pvsBySecret.delete(s);
    }
  }

  setAttachment(va: KObject): void {
    const name = va.metadata.name ?? '';
    const spec = va['spec'];
    const node = typeof spec === 'object' && spec !== null ? (spec as Record<string, unknown>)['nodeName'] : undefined;
    if (typeof node === 'string' && node !== '') this.#attachments.set(name, node);
    else this.#attachments.delete(name);
  }

  deleteAttachment(name: string): void {
    this.#attachments.delete(name);
  }

  /** A watch was lost: forget one kind of source (it is replayed). */
  reset(source: 'pods' | 'persistentvolumes' | 'volumeattachments'): void {
    if (source === 'pods') {
      this.#pods.clear();
      this.#reach.clear();
    } else if (source === 'persistentvolumes') {
      this.#pvs.clear();
      this.#pvsBySecret.clear();
    } else {
      this.#attachments.clear();
    }
  }

  /** Is there a path from the object to the node? */
  hasPathFrom(nodeName: string, type: VertexType, namespace: string, name: string): boolean {
    const table = this.#reach.get(nodeName);
    switch (type) {
      case 'configmap':
      case 'pvc':
      case 'serviceaccount':
        return (table?.get(key(type, namespace, name)) ?? 0) > 0;
      case 'secret': {
        if ((table?.get(key('secret', namespace, name)) ?? 0) > 0) return true;
        for (const pv of this.#pvsBySecret.get(`${namespace}/${name}`) ?? []) if (this.hasPathFrom(nodeName, 'pv', '', pv)) return true;
        return false;
      }
      case 'pv': {
        const claim = this.#pvs.get(name)?.claim;
        if (claim === undefined || table === undefined) return false;
        const slash = claim.indexOf('/');
        return (table.get(key('pvc', claim.slice(0, slash), claim.slice(slash + 1))) ?? 0) > 0;
      }
      case 'volumeattachment':
        return this.#attachments.get(name) === nodeName;
    }
  }
}
