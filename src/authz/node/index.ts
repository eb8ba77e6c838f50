/**
 * The Node mode of one serving thread: its graph, fed by one list-watch per
 * source type (pods, persistent volumes, volume attachments) through the
 * thread's router, and the authorizer reading it. close() ends the watches.
 */
import type { GenericStore } from '../../registry/generic-store.ts';
import type { ResourceRegistry } from '../../registry/registry.ts';
import { apiGroup } from '../../naming/index.ts';
import { ListWatchFeed, type FeedEvent } from './feed.ts';
import { NodeGraph } from './graph.ts';
import { NodeAuthorizer } from './authorizer.ts';

export { NodeGraph } from './graph.ts';
export { NodeAuthorizer, nodeIdentity, NODE_USER_PREFIX, NODES_GROUP } from './authorizer.ts';

export interface NodeMode {
  readonly authorizer: NodeAuthorizer;
  readonly graph: NodeGraph;
  close(): void;
}

export function startNodeMode(store: GenericStore, registry: ResourceRegistry): NodeMode {
  const graph = new NodeGraph();
  const feeds: ListWatchFeed[] = [];
  const follow = (group: string, version: string, resource: 'pods' | 'persistentvolumes' | 'volumeattachments', set: (ev: Extract<FeedEvent, { object: unknown }>) => void, del: (ev: Extract<FeedEvent, { object: unknown }>) => void): void => {
    const rt = registry.lookup(group, version, resource);
    if (rt === undefined) return;
    const feed = new ListWatchFeed(store, rt, (ev) => {
      if (ev.type === 'reset') graph.reset(resource);
      else if (ev.type === 'DELETED') del(ev);
      else set(ev);
    });
    feeds.push(feed);
    feed.start();
  };
  follow('', 'v1', 'pods', (ev) => graph.setPod(ev.object), (ev) => graph.deletePod(`${ev.object.metadata.namespace ?? ''}/${ev.object.metadata.name ?? ''}`));
  follow('', 'v1', 'persistentvolumes', (ev) => graph.setPv(ev.object), (ev) => graph.deletePv(ev.object.metadata.name ?? ''));
  follow(apiGroup('storage'), 'v1', 'volumeattachments', (ev) => graph.setAttachment(ev.object), (ev) => graph.deleteAttachment(ev.object.metadata.name ?? ''));
  return {
    authorizer: new NodeAuthorizer(graph),
    graph,
    close: () => {
      for (const f of feeds) f.close();
    },
  };
}
