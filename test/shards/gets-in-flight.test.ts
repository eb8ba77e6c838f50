/**
 * A serving thread's GETs of one object share the shard's answer while one is
 * on its way (ShardClient#getsInFlight), only when no write was acknowledged
 * in between (the store's committed revision is the one the first was asked
 * at), and a consistent read never takes a resourceVersion=0 read's answer.
 * The test plays the shard on the other end of a MessageChannel.
 */
import { afterEach, beforeEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { MessageChannel, type MessagePort } from 'node:worker_threads';
import { ShardClient } from '../../shards/shard-client.ts';
import type { GetReply, ReadMode, ShardMessage, ShardRequest } from '../../shards/protocol.ts';
import { ReadCells } from '../../shards/read-cells.ts';
import { SharedRevision } from '../../src/storage/shared-revision.ts';

const RESOURCE = '/configmaps';
const KEY = '/configmaps/default/a';
type GetRequest = Extract<ShardRequest, { op: 'get' }>;

/** The shard's end: the GETs it was asked, answered when the test says. */
class FakeShard {
  readonly cells = ReadCells.allocate(4);
  readonly committed = SharedRevision.allocate();
  readonly gets: GetRequest[] = [];
  readonly #port: MessagePort;
  #arrived: (() => void) | undefined;

  constructor(port: MessagePort) {
    this.#port = port;
    port.on('message', (batch: ShardRequest[]) => {
      for (const req of batch) if (req.op === 'get') this.gets.push(req);
      this.#arrived?.();
    });
    this.cells.claim();
    this.cells.publish(0, 10, 1);
    this.committed.publish(10);
    this.send({ t: 'readCells', cells: this.cells.buffer, storeRevision: this.committed.buffer });
  }

  send(m: ShardMessage): void {
    this.#port.postMessage([m]);
  }

  /** Resolves once `n` GETs in all have arrived. */
  async received(n: number): Promise<void> {
    const deadline = Date.now() + 3000;
    while (this.gets.length < n) {
      assert.ok(Date.now() < deadline, `${n} GETs reach the shard (${this.gets.length} did)`);
      await new Promise<void>((resolve) => {
        this.#arrived = resolve;
        setTimeout(resolve, 50);
      });
    }
  }

  answer(req: GetRequest, reply: GetReply): void {
    this.send({ t: 'ok', id: req.id, value: reply });
  }

  close(): void {
    this.#port.close();
  }
}

function found(name: string, slot: number | undefined = 0, changes: number | undefined = 1): GetReply {
  return { object: { json: new TextEncoder().encode(`{"metadata":{"name":"${name}"}}`), revision: 10 }, revision: 10, slot, changes };
}

const LATEST: ReadMode = { kind: 'latest' };
const ANY: ReadMode = { kind: 'any' };

/** Lets the client's batched port send what it queued (it flushes at setImmediate) and the replies arrive. */
const settle = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 20));

describe('GETs in flight', () => {
  let client: ShardClient;
  let shard: FakeShard;

  beforeEach(async () => {
    const { port1, port2 } = new MessageChannel();
    client = new ShardClient({ index: 0, onLost: () => {} });
    client.attach(port1);
    shard = new FakeShard(port2);
    // The readCells message: from then on the client keeps answers.
    for (let waited = 0; client.readCacheStats() === null; waited += 5) {
      assert.ok(waited < 5000, 'the readCells message arrives');
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  });

  afterEach(() => {
    client.close();
    shard.close();
  });

  it('share one hop while nothing was committed in between, and the answer is kept afterwards', async () => {
    const first = client.get(RESOURCE, KEY, LATEST);
    const second = client.get(RESOURCE, KEY, LATEST);
    const third = client.get(RESOURCE, KEY, ANY);
    await shard.received(1);
    await settle();
    assert.equal(shard.gets.length, 1, 'one GET reached the shard');
    assert.equal(client.getsJoined, 2);
    const reply = found('a');
    shard.answer(shard.gets[0]!, reply);
    const answers = await Promise.all([first, second, third]);
    for (const a of answers) assert.deepEqual(a, reply);
    // Answered: the next one is a kept answer, no hop and nothing joined.
    assert.deepEqual(await client.get(RESOURCE, KEY, LATEST), reply);
    await settle();
    assert.equal(shard.gets.length, 1);
    assert.equal(client.getsJoined, 2);
  });

  it('do not share once a write was committed after the first was asked', async () => {
    const first = client.get(RESOURCE, KEY, LATEST);
    shard.committed.publish(11);
    const second = client.get(RESOURCE, KEY, LATEST);
    await shard.received(2);
    assert.equal(client.getsJoined, 0);
    shard.answer(shard.gets[0]!, found('old'));
    shard.answer(shard.gets[1]!, found('new', 0, 2));
    assert.equal(new TextDecoder().decode((await first).object!.json), '{"metadata":{"name":"old"}}');
    assert.equal(new TextDecoder().decode((await second).object!.json), '{"metadata":{"name":"new"}}');
  });

  it('a consistent read does not take the answer of a resourceVersion=0 read, nor of another object or resource', async () => {
    const any = client.get(RESOURCE, KEY, ANY);
    const latest = client.get(RESOURCE, KEY, LATEST);
    const other = client.get('/secrets', KEY, LATEST);
    const otherKey = client.get(RESOURCE, '/configmaps/default/b', LATEST);
    await shard.received(4);
    assert.equal(client.getsJoined, 0);
    assert.deepEqual(
      shard.gets.map((g) => [g.resource, g.key, g.read.kind]),
      [
        [RESOURCE, KEY, 'any'],
        [RESOURCE, KEY, 'latest'],
        ['/secrets', KEY, 'latest'],
        [RESOURCE, '/configmaps/default/b', 'latest'],
      ],
    );
    for (const g of shard.gets) shard.answer(g, found(g.key, undefined, undefined));
    await Promise.all([any, latest, other, otherKey]);
  });

  it('share a failure, and a GET after it asks again', async () => {
    const first = client.get(RESOURCE, KEY, LATEST);
    const second = client.get(RESOURCE, KEY, LATEST);
    await shard.received(1);
    shard.send({ t: 'err', id: shard.gets[0]!.id, error: { code: 'Internal', message: 'boom' } });
    await assert.rejects(first, /boom/);
    await assert.rejects(second, /boom/);
    const third = client.get(RESOURCE, KEY, LATEST);
    await shard.received(2);
    shard.answer(shard.gets[1]!, found('a'));
    assert.deepEqual(await third, found('a'));
  });
});
