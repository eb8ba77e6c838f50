/**
 * Discovery documents: /api, /apis, /apis/<group>, /api/v1 and
 * /apis/<group>/<version>, built once from the registry at start (the
 * served types do not change while running) and served as bytes.
 */
import { createHash } from 'node:crypto';
import type { ResourceRegistry } from '../registry/registry.ts';
import type { ResourceType } from '../registry/resource-type.ts';
import { names } from '../naming/index.ts';

const encoder = new TextEncoder();

export interface APIResource {
  name: string;
  singularName: string;
  namespaced: boolean;
  group?: string;
  version?: string;
  kind: string;
  verbs: string[];
  shortNames?: string[];
  categories?: string[];
  storageVersionHash?: string;
}

/** The original's storage version hash: base64 of the first 8 bytes of sha256("<group>/<version>/<kind>"). */
export function storageVersionHash(group: string, version: string, kind: string): string {
  return createHash('sha256').update(`${group}/${version}/${kind}`).digest().subarray(0, 8).toString('base64');
}

function resourceEntries(rt: ResourceType): APIResource[] {
  const main: APIResource = {
    name: rt.resource,
    singularName: rt.singularName,
    namespaced: rt.namespaced,
    kind: rt.kind,
    verbs: [...rt.verbs].sort(),
  };
  if (rt.shortNames.length > 0) main.shortNames = rt.shortNames;
  if (rt.categories.length > 0) main.categories = rt.categories;
  if (!rt.virtual) main.storageVersionHash = storageVersionHash(rt.group, rt.version, rt.kind);
  const subs = rt.subresources.map((s): APIResource => {
    const e: APIResource = { name: `${rt.resource}/${s.name}`, singularName: '', namespaced: rt.namespaced, kind: s.kind, verbs: [...s.verbs].sort() };
    if (s.group !== undefined) e.group = s.group;
    if (s.version !== undefined) e.version = s.version;
    return e;
  });
  return [main, ...subs];
}

export interface DiscoveryDocuments {
  /** Path -> JSON bytes. */
  readonly byPath: ReadonlyMap<string, Uint8Array>;
}

export function buildDiscovery(registry: ResourceRegistry, serverAddress: string): DiscoveryDocuments {
  const byPath = new Map<string, Uint8Array>();
  const put = (path: string, doc: unknown): void => {
    byPath.set(path, encoder.encode(JSON.stringify(doc)));
  };
  const groups = registry.groupVersions();
  put('/api', {
    kind: 'APIVersions',
    versions: groups.get('') ?? [],
    serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress }],
  });
  const groupDocs: unknown[] = [];
  for (const [group, versions] of groups) {
    for (const version of versions) {
      const gv = group === '' ? version : `${group}/${version}`;
      put(group === '' ? `/api/${version}` : `/apis/${group}/${version}`, {
        kind: 'APIResourceList',
        apiVersion: 'v1',
        groupVersion: gv,
        resources: registry.typesAt(group, version).flatMap(resourceEntries),
      });
    }
    if (group === '') continue;
    const doc = {
      name: group,
      versions: versions.map((v) => ({ groupVersion: `${group}/${v}`, version: v })),
      preferredVersion: { groupVersion: `${group}/${versions[0]}`, version: versions[0] },
    };
    groupDocs.push(doc);
    put(`/apis/${group}`, { kind: 'APIGroup', apiVersion: 'v1', ...doc });
  }
  put('/apis', { kind: 'APIGroupList', apiVersion: 'v1', groups: groupDocs });
  return { byPath };
}

export const VERSION_INFO = {
  major: '1',
  minor: '32',
  gitVersion: `v1.32.0${names.gitVersionSuffix}`,
  gitCommit: '0000000000000000000000000000000000000000',
  gitTreeState: 'clean',
  buildDate: '2026-11-22T00:00:00Z',
  goVersion: `node${process.versions.node}`,
  compiler: 'tsx',
  platform: `${process.platform}/${process.arch === 'x64' ? 'amd64' : process.arch}`,
};
