/**
 * A large list answer in pieces (shards/list-pieces.ts): the pieces join to
 * exactly the bytes of the whole answer whatever the sizes (items straddling
 * pieces, one item larger than several pieces, exact boundaries), each piece
 * owns its buffer (it is transferred), and the receiving queue hands them out
 * in order, fails its reader when the answer is cut short, and drops what
 * arrives after its reader left.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { MessageChannel, type MessagePort } from 'node:worker_threads';
import { ListPieceQueue, ListPiecesLost, joinedJsonLength, jsonPieces, type JoinedItem } from '../../shards/list-pieces.ts';
import { ShardClient } from '../../shards/shard-client.ts';
import type { ListReply, ShardMessage, ShardRequest } from '../../shards/protocol.ts';

const item = (text: string, typeMetaBytes = 0): JoinedItem => ({ json: new TextEncoder().encode(text), typeMetaBytes });
const whole = (items: readonly JoinedItem[]): string => items.map((i) => Buffer.from(i.json).toString('utf8')).join(',');
/** The items joined as a bare list carries them: each without the typeMetaBytes after its brace. */
const wholeBare = (items: readonly JoinedItem[]): string =>
  items.map((i) => { const t = Buffer.from(i.json).toString('utf8'); return i.typeMetaBytes === 0 ? t : `{${t.slice(1 + i.typeMetaBytes)}`; }).join(',');
const TYPE_META = '"kind":"ConfigMap","apiVersion":"v1",';
/** A repeatable random integer below n (a linear congruential generator from `seed`). */
function seededRandom(seed: number): (n: number) => number {
  return (n) => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return seed % n;
  };
}

describe('jsonPieces', () => {
  const cases: Array<[string, string[], number]> = [
    ['no items', [], 4],
    ['one item smaller than a piece', ['{"a":1}'], 64],
    ['items straddling pieces', ['{"a":1}', '{"bb":22}', '{"ccc":333}', '{"d":4}'], 5],
    ['an item larger than several pieces', ['{"big":"' + 'x'.repeat(50) + '"}', '{"s":1}'], 7],
    ['pieces of one byte', ['{}', '{}', '{}'], 1],
    ['a boundary right before a comma', ['1234', '5678'], 4],
    ['a boundary right after a comma', ['1234', '5678'], 5],
    ['a comma and an item that fill a piece exactly', ['ab', 'cde', 'f', 'gh'], 6],
    ['a first item that fills a piece exactly', ['abcdef', 'g'], 6],
    ['every piece filled exactly', ['abc', 'de', 'fgh', 'ij'], 3],
  ];
  for (const [name, texts, pieceBytes] of cases) {
    it(`joins to the whole answer: ${name}`, () => {
      const items = texts.map(item);
      const total = joinedJsonLength(items);
      assert.equal(total, Buffer.byteLength(whole(items)));
      const pieces = [...jsonPieces(items, total, pieceBytes)];
      assert.equal(Buffer.concat(pieces).toString('utf8'), whole(items));
      for (const [i, p] of pieces.entries()) {
        assert.ok(p.byteLength === pieceBytes || i === pieces.length - 1, `piece ${i} is full (${p.byteLength})`);
        assert.equal(p.byteOffset, 0);
        assert.equal(p.buffer.byteLength, p.byteLength, 'a buffer of its own, to transfer');
      }
      assert.equal(pieces.length, Math.ceil(total / pieceBytes));
    });
  }

  it('joins to the whole answer for 500 random mixes of item and piece sizes', () => {
    const rand = seededRandom(12345);
    for (let round = 0; round < 500; round++) {
      const items = Array.from({ length: rand(12) }, (_, i) => item(String.fromCharCode(97 + (i % 26)).repeat(1 + rand(20))));
      const total = joinedJsonLength(items);
      const pieceBytes = 1 + rand(25);
      const pieces = [...jsonPieces(items, total, pieceBytes)];
      assert.equal(Buffer.concat(pieces).toString('utf8'), whole(items), `round ${round}, pieces of ${pieceBytes}`);
      assert.ok(pieces.slice(0, -1).every((p) => p.byteLength === pieceBytes));
    }
  });

  it('leaves out each item\'s kind and apiVersion in a bare list, across 500 random mixes of sizes (items that lack them kept whole)', () => {
    const rand = seededRandom(777);
    for (let round = 0; round < 500; round++) {
      const items = Array.from({ length: rand(12) }, (_, i) =>
        rand(4) === 0
          ? item(`{"metadata":{"name":"${'n'.repeat(rand(10))}"}}`)
          : item(`{${TYPE_META}"metadata":{"name":"${String.fromCharCode(97 + (i % 26)).repeat(1 + rand(20))}"}}`, TYPE_META.length),
      );
      const total = joinedJsonLength(items, true);
      assert.equal(total, Buffer.byteLength(wholeBare(items)), `round ${round}: the length as joined`);
      const pieceBytes = 1 + rand(60);
      const pieces = [...jsonPieces(items, total, pieceBytes, undefined, true)];
      const text = Buffer.concat(pieces).toString('utf8');
      assert.equal(text, wholeBare(items), `round ${round}, pieces of ${pieceBytes}`);
      const parsed = JSON.parse(`[${text}]`) as Array<Record<string, unknown>>;
      assert.ok(parsed.every((o) => !('kind' in o) && !('apiVersion' in o) && typeof o['metadata'] === 'object'));
      assert.ok(pieces.slice(0, -1).every((p) => p.byteLength === pieceBytes));
    }
  });

  it('joins shared pieces (through the staging buffer) to the same bytes, and interleaved lists never mix', () => {
    const shared = (bytes: number): Uint8Array => new Uint8Array(new SharedArrayBuffer(bytes));
    const rand = seededRandom(4242);
    for (let round = 0; round < 200; round++) {
      const mix = (letter: number): JoinedItem[] =>
        Array.from({ length: 1 + rand(12) }, () =>
          rand(3) === 0
            ? item(`{"metadata":{"name":"${String.fromCharCode(letter).repeat(1 + rand(9))}"}}`)
            : item(`{${TYPE_META}"v":"${String.fromCharCode(letter).repeat(1 + rand(30))}"}`, TYPE_META.length),
        );
      const a = mix(97);
      const b = mix(98);
      const pieceBytes = 1 + rand(40);
      const bare = rand(2) === 0;
      const genA = jsonPieces(a, joinedJsonLength(a, bare), pieceBytes, shared, bare);
      const genB = jsonPieces(b, joinedJsonLength(b, bare), pieceBytes, shared, bare);
      // A piece of each in turn, as two lists streamed by one shard go a piece per turn.
      const gotA: Uint8Array[] = [];
      const gotB: Uint8Array[] = [];
      for (let doneA = false, doneB = false; !doneA || !doneB; ) {
        if (!doneA) {
          const step = genA.next();
          if (step.done === true) doneA = true;
          else gotA.push(step.value);
        }
        if (!doneB) {
          const step = genB.next();
          if (step.done === true) doneB = true;
          else gotB.push(step.value);
        }
      }
      const join = bare ? wholeBare : whole;
      assert.equal(Buffer.concat(gotA).toString('utf8'), join(a), `round ${round}: the first list`);
      assert.equal(Buffer.concat(gotB).toString('utf8'), join(b), `round ${round}: the second list`);
      assert.ok([...gotA, ...gotB].every((p) => p.buffer instanceof SharedArrayBuffer));
    }
  });

  it('copies: pieces taken earlier keep their bytes while later ones are made', () => {
    const items = ['{"a":1}', '{"b":2}', '{"c":3}'].map(item);
    const gen = jsonPieces(items, joinedJsonLength(items), 4);
    const first = gen.next().value as Uint8Array;
    const before = Buffer.from(first).toString('utf8');
    for (const _ of gen) {
      // draining the rest
    }
    assert.equal(Buffer.from(first).toString('utf8'), before);
  });

  it('refuses a total that does not match the items (never a short answer sent as a whole one)', () => {
    const items = ['{"a":1}'].map(item);
    assert.throws(() => [...jsonPieces(items, 12, 4)], /announced/);
    assert.throws(() => [...jsonPieces(items, 4, 4)], /more than the 4 bytes announced/);
  });
});

describe('ListPieceQueue', () => {
  const bytes = (s: string): Uint8Array => new TextEncoder().encode(s);
  const readAll = async (q: ListPieceQueue): Promise<string> => {
    const out: Uint8Array[] = [];
    for await (const p of q) out.push(p);
    return Buffer.concat(out).toString('utf8');
  };

  it('hands out pieces in order, those before the reader came and those after, and ends at the total', async () => {
    const q = new ListPieceQueue(9);
    q.push(bytes('abc'));
    const reading = readAll(q);
    await new Promise((r) => setImmediate(r));
    q.push(bytes('def'));
    assert.equal(q.complete, false);
    q.push(bytes('ghi'));
    assert.equal(q.complete, true);
    assert.equal(await reading, 'abcdefghi');
  });

  it('fails its reader when the answer is cut short, after the pieces it had', async () => {
    const q = new ListPieceQueue(9);
    q.push(bytes('abc'));
    const seen: string[] = [];
    const reading = (async () => {
      for await (const p of q) seen.push(Buffer.from(p).toString('utf8'));
    })();
    await new Promise((r) => setImmediate(r));
    q.fail(new ListPiecesLost('shard restarted'));
    await assert.rejects(reading, ListPiecesLost);
    assert.deepEqual(seen, ['abc']);
  });

  it('fails on more bytes than announced', async () => {
    const q = new ListPieceQueue(2);
    q.push(bytes('abc'));
    await assert.rejects(readAll(q), /more bytes than the 2 announced/);
  });

  it('drops what arrives once its reader left or was never coming', async () => {
    const q = new ListPieceQueue(6);
    q.push(bytes('ab'));
    for await (const p of q) {
      assert.equal(Buffer.from(p).toString('utf8'), 'ab');
      break;
    }
    q.push(bytes('cd'));
    q.push(bytes('ef'));
    assert.equal(q.complete, true);
    const other = new ListPieceQueue(4);
    other.abandon();
    other.push(bytes('wxyz'));
    assert.equal(other.complete, true);
    // Nothing was kept: a reader now gets no piece.
    const got: Uint8Array[] = [];
    for await (const p of other) got.push(p);
    assert.equal(got.length, 0);
  });

  it('tells once that its reader left while the answer was still coming, and never after it was through', async () => {
    let told = 0;
    const early = new ListPieceQueue(6, () => told++);
    early.push(bytes('ab'));
    for await (const p of early) {
      assert.equal(p.byteLength, 2);
      break;
    }
    assert.equal(told, 1, 'a reader that leaves the loop early');
    early.abandon();
    assert.equal(told, 1, 'once');

    let toldNever = 0;
    const never = new ListPieceQueue(4, () => toldNever++);
    never.abandon();
    assert.equal(toldNever, 1, 'a reader that never came');

    let toldWhole = 0;
    const whole = new ListPieceQueue(4, () => toldWhole++);
    whole.push(bytes('abcd'));
    for await (const p of whole) assert.equal(p.byteLength, 4);
    whole.abandon();
    assert.equal(toldWhole, 0, 'an answer read through');

    let toldFailed = 0;
    const failed = new ListPieceQueue(4, () => toldFailed++);
    failed.fail(new ListPiecesLost('cut'));
    failed.abandon();
    assert.equal(toldFailed, 0, 'an answer that failed is not stopped again');
  });

  it('says its pieces are written once, only for a whole answer its reader did not leave or lose', async () => {
    let whole = 0;
    const q = new ListPieceQueue(4, undefined, () => whole++);
    q.push(bytes('ab'));
    q.written();
    assert.equal(whole, 0, 'not before every piece came');
    q.push(bytes('cd'));
    for await (const p of q) assert.ok(p.byteLength > 0);
    q.written();
    q.written();
    assert.equal(whole, 1, 'once');

    let left = 0;
    const early = new ListPieceQueue(4, () => undefined, () => left++);
    early.push(bytes('ab'));
    for await (const p of early) {
      assert.equal(p.byteLength, 2);
      break;
    }
    early.push(bytes('cd'));
    assert.equal(early.complete, true);
    early.written();
    assert.equal(left, 0, 'a reader that left mid-answer may still hold a piece');

    let failed = 0;
    const cut = new ListPieceQueue(4, undefined, () => failed++);
    cut.push(bytes('ab'));
    cut.fail(new ListPiecesLost('cut'));
    cut.written();
    assert.equal(failed, 0, 'a failed answer');
  });

  it('says once that a reader with every piece is through without writing them cleanly, and only then', async () => {
    let stopped = 0;
    let clean = 0;
    const q = new ListPieceQueue(4, () => stopped++, () => clean++);
    q.push(bytes('abcd'));
    for await (const p of q) assert.equal(p.byteLength, 4);
    q.release();
    q.release();
    q.written();
    assert.deepEqual([stopped, clean], [1, 0], 'released once, and never written after');

    let stoppedAfterWritten = 0;
    const w = new ListPieceQueue(2, () => stoppedAfterWritten++, () => undefined);
    w.push(bytes('ab'));
    for await (const p of w) assert.equal(p.byteLength, 2);
    w.written();
    w.release();
    assert.equal(stoppedAfterWritten, 0, 'an answer written cleanly is not released');

    let stoppedMid = 0;
    const mid = new ListPieceQueue(4, () => stoppedMid++);
    mid.push(bytes('ab'));
    for await (const p of mid) {
      assert.equal(p.byteLength, 2);
      break;
    }
    mid.release();
    assert.equal(stoppedMid, 1, 'a reader that left mid-answer was told once, at abandon');

    let stoppedThenAbandoned = 0;
    const cut = new ListPieceQueue(4, () => stoppedThenAbandoned++);
    cut.push(bytes('ab'));
    cut.release();
    cut.abandon();
    assert.equal(stoppedThenAbandoned, 1, 'released mid-answer (its response failed), then abandoned: told once');

    let stoppedFailed = 0;
    const failed = new ListPieceQueue(4, () => stoppedFailed++);
    failed.fail(new ListPiecesLost('cut'));
    failed.release();
    assert.equal(stoppedFailed, 0, 'a failed answer: the shard ended it itself');

  });
});

describe('ShardClient with a streamed answer (a stand-in shard on the other end of the channel)', () => {
  /**
   * Lists through a client whose stand-in shard answers with `script` (batches of messages, as a BatchedPort
   * posts them), then runs `check` on the answer; the channel is closed after.
   */
  const againstShard = async (script: (id: number, port: MessagePort) => void, check: (reply: ListReply) => Promise<void>): Promise<void> => {
    const { port1, port2 } = new MessageChannel();
    const client = new ShardClient({ index: 0, onLost: () => {} });
    client.attach(port1);
    port2.on('message', (batch: ShardRequest[]) => {
      for (const req of batch) if (req.op === 'list') script(req.id, port2);
    });
    try {
      await check(await client.call<ListReply>({ op: 'list', resource: '/configmaps', read: { kind: 'any' }, filter: {}, stream: true }));
    } finally {
      client.close();
      port2.close();
    }
  };
  const streamedReply = (id: number, total: number): ShardMessage[] => [{ t: 'ok', id, value: { items: new Uint8Array(0), count: 1, revision: 7, streamed: total } }];
  const piece = (id: number, text: string): ShardMessage[] => [{ t: 'piece', id, bytes: new TextEncoder().encode(text) }];
  const read = async (reply: ListReply): Promise<string> => {
    const out: Uint8Array[] = [];
    for await (const p of reply.pieces!) out.push(p);
    return Buffer.concat(out).toString('utf8');
  };

  it('resolves at the reply with a queue the pieces then fill', async () => {
    await againstShard(
      (id, p) => {
        p.postMessage(streamedReply(id, 6));
        p.postMessage(piece(id, 'abc'));
        p.postMessage(piece(id, 'def'));
      },
      async (reply) => {
        assert.equal(reply.streamed, 6);
        assert.equal(await read(reply), 'abcdef');
      },
    );
  });

  it('fails the queue when the shard reports an error after its reply', async () => {
    await againstShard(
      (id, p) => {
        p.postMessage(streamedReply(id, 6));
        p.postMessage(piece(id, 'abc'));
        p.postMessage([{ t: 'err', id, error: { code: 'Internal', message: 'copy failed' } }]);
      },
      (reply) => assert.rejects(read(reply), (err: unknown) => err instanceof ListPiecesLost && /copy failed/.test(err.message)),
    );
  });

  it('fails the queue when the channel closes mid-answer (the shard thread went away)', async () => {
    await againstShard(
      (id, p) => {
        p.postMessage(streamedReply(id, 6));
        p.postMessage(piece(id, 'abc'));
        setTimeout(() => p.close(), 20);
      },
      (reply) => assert.rejects(read(reply), ListPiecesLost),
    );
  });
});
