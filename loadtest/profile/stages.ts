/**
 * Which stage of a request a profile sample belongs to: the sample's stack is
 * read from the leaf (the function on CPU) towards the root, and the first
 * frame some rule recognizes names the stage. So a builtin (JSON.parse, a
 * native write) is charged to the nearest caller we know (decode, response
 * write), and a helper shared by many stages to the stage that called it.
 * Rules are ordered: within one frame, the first match wins.
 */

export interface Frame {
  readonly functionName: string;
  /** As V8 reports it: file:///.../dist/src/x.js, node:internal/..., or '' for builtins. */
  readonly url: string;
}

interface Rule {
  readonly stage: string;
  readonly url?: RegExp;
  readonly fn?: RegExp;
}

/** Stages that are not a frame (V8's pseudo-nodes). */
export const GC = 'GC (garbage collector, on this thread)';
export const PROGRAM = 'native, no JS on the stack (main: TLS decrypt, HTTP parse, socket reads; all: event loop, message receipt)';
export const UNKNOWN = 'other (unattributed JS, node internals)';

const RULES: readonly Rule[] = [
  // Builtins named for what they do, whoever calls them.
  { stage: 'serialization (JSON.stringify, Protobuf encode, response bodies)', url: /^$/, fn: /^stringify$/ },
  { stage: 'decode (body read, JSON.parse, typed decoding)', url: /^$/, fn: /^parse$/ },
  { stage: 'TLS (node:tls, encrypt inside writes)', url: /node:_tls|node:tls/ },
  // Audit (when a policy is given): the filter, its events and lines, the log backend; the peer address it reads is
  // the front end's (request).
  { stage: 'audit (filter, events, log lines and file)', url: /src\/audit\/[^/]+\.[jt]s$/ },
  // Response write: the front ends' end/write paths and node's http2/stream writers below them.
  { stage: 'response write (head, body, TLS encrypt + send)', url: /src\/frontends\/(uws-exchange|node-h2-exchange|node-h1-exchange|node-write-queue|node-parts-pump|response-head)\.[jt]s$/, fn: /end|write|respond|cork|flush|send|head|pump|drain/i },
  { stage: 'response write (head, body, TLS encrypt + send)', url: /node:internal\/http2\/(core|compat)|node:internal\/streams|node:_http_outgoing|node:internal\/stream_base_commons/, fn: /respond|write|end|finish|flush|destroy|close|_final|Writable|submit|kMaybe|afterWrite|onStreamClose|\[kWrite/i },
  { stage: 'thread hop (batched ports to shards / store host)', url: /shards\/(batched-port|shard-handle|router)\.[jt]s$|src\/storage\/remote\/|node:internal\/worker|messageport|node:internal\/per_context\/messageport/ },
  { stage: 'thread hop (batched ports to shards / store host)', url: /^$/, fn: /^postMessage$|^receiveMessageOnPort$/ },
  { stage: 'authentication', url: /src\/authn\// },
  { stage: 'authorization', url: /src\/authz\/|with-authorization/ },
  { stage: 'admission', url: /src\/admission\// },
  { stage: 'logging (per request)', url: /with-logging|src\/server\/logging|node_modules\/pino/ },
  { stage: 'metrics (per request, prom-client)', url: /with-metrics|src\/server\/metrics|node_modules\/prom-client|request-labels/ },
  { stage: 'routing (request info, path split, route lookup)', url: /with-request-info|src\/server\/routes|src\/endpoints\/discovery/ },
  { stage: 'filters (chain, context, timeout, max in-flight, panic recovery, abort signals)', url: /src\/server\/filters\/|src\/server\/chain|src\/server\/context|src\/frontends\/lifecycle|src\/frontends\/run-handler|node:internal\/abort_controller/ },
  { stage: 'content negotiation', url: /src\/endpoints\/negotiate/ },
  { stage: 'decode (body read, JSON.parse, typed decoding)', url: /src\/endpoints\/body|src\/typed\/|src\/frontends\/(body-limit|body-parts|pushed-body|stream-body)/ },
  { stage: 'managedFields (server-side apply bookkeeping)', url: /src\/apply\// },
  { stage: 'strategy + validation', url: /src\/registry\/(strategies|validation|strategy|catalog|write-hooks|service-allocation)|src\/selectors\// },
  { stage: 'registry (generic store: defaults, names, uid, timestamps)', url: /src\/registry\/|src\/api\// },
  { stage: 'serialization (JSON.stringify, Protobuf encode, response bodies)', url: /src\/endpoints\/(representation|respond)|src\/protobuf\/|src\/watchcache\/json-codec/ },
  { stage: 'endpoint (resource handler, read options)', url: /src\/endpoints\// },
  { stage: 'request (front-end adapter: headers, request object)', url: /src\/frontends\/|node:internal\/http2\/|node:http2|node:_http|src\/server\/http/ },
  { stage: 'watch cache, cached resource, B+ tree (shards/, src/watchcache/)', url: /shards\/|src\/watchcache\/|sorted-btree/ },
  { stage: 'WAL: write-ahead log, group commit, snapshots (store host)', url: /src\/storage\/embedded\/(wal|committer|frame-file|records|snapshot|files)\.[jt]s$/ },
  { stage: 'MVCC store (store host: revisions, watch events)', url: /src\/storage\/embedded\/|src\/storage\// },
  { stage: 'crypto (hashes, random ids)', url: /node:internal\/crypto|node:crypto/ },
  { stage: 'timers, promises, microtasks', url: /node:internal\/(timers|process\/task_queues)|node:timers/ },
];

const cache = new Map<string, string | null>();

function frameStage(f: Frame): string | null {
  const key = `${f.functionName}\u0000${f.url}`;
  const hit = cache.get(key);
  if (hit !== undefined) return hit;
  let stage: string | null = null;
  for (const r of RULES) {
    if (r.url && !r.url.test(f.url)) continue;
    if (r.fn && !r.fn.test(f.functionName)) continue;
    stage = r.stage;
    break;
  }
  cache.set(key, stage);
  return stage;
}

/** The stage of a stack given leaf first; null for (idle). */
export function classify(stackLeafFirst: readonly Frame[]): string | null {
  const leaf = stackLeafFirst[0];
  if (leaf) {
    if (leaf.functionName === '(idle)') return null;
    if (leaf.functionName === '(garbage collector)') return GC;
    if (leaf.functionName === '(program)') return PROGRAM;
  }
  for (const f of stackLeafFirst) {
    const s = frameStage(f);
    if (s !== null) return s;
  }
  return UNKNOWN;
}
