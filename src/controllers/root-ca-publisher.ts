/**
 * RootCaPublisher keeps the root CA config map (names.rootCaConfigMap, key
 * `ca.crt`) in every active namespace, as the original's
 * root-ca-cert-publisher: created when missing, put back when deleted, and
 * its data reset to exactly the CA bundle (with the description annotation)
 * when someone changed it. Terminating namespaces are left alone.
 */
import { names } from '../naming/index.ts';
import { StatusError } from '../api/status.ts';
import type { KObject } from '../registry/object.ts';
import { Informer } from './informer.ts';
import { WorkQueue } from './work-queue.ts';
import { controllerUser, errText, lookupType, type ControllerContext } from './controller-context.ts';
import type { ElectedController } from './leader-election.ts';

const USER = controllerUser('root-ca-cert-publisher');
export const ROOT_CA_KEY = 'ca.crt';
export const ROOT_CA_DESCRIPTION =
  'Contains a CA bundle that can be used to verify the API server when using internal endpoints such as the internal service IP or ' +
  `${names.apiServiceName}.default.svc. No other usage is guaranteed across distributions of clusters.`;

export class RootCaPublisher implements ElectedController {
  readonly name = 'root-ca-cert-publisher';
  readonly #ctx: ControllerContext;
  readonly #rootCa: string;
  readonly #namespaces: Informer;
  readonly #configMaps: Informer;
  readonly #queue: WorkQueue;
  writes = 0;

  constructor(ctx: ControllerContext, rootCaPem: string) {
    this.#ctx = ctx;
    this.#rootCa = rootCaPem;
    this.#namespaces = new Informer(ctx.store, lookupType(ctx.registry, '', 'namespaces'));
    this.#configMaps = new Informer(ctx.store, lookupType(ctx.registry, '', 'configmaps'), { name: names.rootCaConfigMap });
    this.#queue = new WorkQueue((ns) => this.#sync(ns), (key, err) => ctx.log.warn({ controller: this.name, key, err: errText(err) }, 'root CA publisher sync failed'));
    this.#namespaces.onEvent((type, obj) => {
      if (type !== 'DELETED') this.#queue.add(obj.metadata.name!);
    });
    this.#configMaps.onEvent((_t, obj) => {
      if (obj.metadata.name === names.rootCaConfigMap && obj.metadata.namespace) this.#queue.add(obj.metadata.namespace);
    });
  }

  async start(): Promise<void> {
    this.#queue.resume();
    await this.#configMaps.start();
    await this.#namespaces.start();
  }

  stop(): void {
    this.#queue.stop();
    this.#namespaces.stop();
    this.#configMaps.stop();
  }

  async drained(): Promise<void> {
    await this.#queue.drained();
  }

  async #sync(namespace: string): Promise<void> {
    const ns = this.#namespaces.get('', namespace);
    if (ns === undefined || ns.metadata.deletionTimestamp) return;
    const rt = this.#configMaps.resourceType;
    const opts = { user: USER, dryRun: false, fieldManager: 'root-ca-cert-publisher' };
    const data = { [ROOT_CA_KEY]: this.#rootCa };
    const cm = this.#configMaps.get(namespace, names.rootCaConfigMap);
    try {
      if (cm === undefined) {
        await this.#ctx.store.create(rt, namespace, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: names.rootCaConfigMap, namespace, annotations: { [names.annotations.description]: ROOT_CA_DESCRIPTION } }, data }, opts);
        this.writes++;
        return;
      }
      const cur = (cm['data'] ?? {}) as Record<string, unknown>;
      const annotations = cm.metadata.annotations ?? {};
      if (Object.keys(cur).length === 1 && cur[ROOT_CA_KEY] === this.#rootCa && (annotations[names.annotations.description] ?? '') !== '') return;
      const next: KObject = { ...cm, metadata: { ...cm.metadata, annotations: { ...annotations, [names.annotations.description]: ROOT_CA_DESCRIPTION } }, data };
      delete next['binaryData'];
      await this.#ctx.store.update(rt, namespace, names.rootCaConfigMap, next, opts);
      this.writes++;
    } catch (err) {
      // 409: made or changed meanwhile (its event brings it back); 403/404: the namespace is going.
      if (err instanceof StatusError && (err.code === 409 || err.code === 403 || err.code === 404)) return;
      throw err;
    }
  }
}
