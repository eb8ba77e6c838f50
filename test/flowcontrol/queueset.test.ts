/**
 * QueueSet and the shuffle-sharding dealer without a server: seats, Reject
 * vs Queue, queue-full and time-out, fairness between flows, and the
 * determinism of dealt hands.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { QueueSet, type Ticket } from '../../src/flowcontrol/queueset.ts';
import { Dealer } from '../../src/flowcontrol/shuffle-sharding.ts';
import { flowHash } from '../../src/flowcontrol/classifier.ts';

/** A clock the test moves by hand (ms). */
function manualClock(): { now: () => number; advance(ms: number): void } {
  let t = 1_000_000;
  return { now: () => t, advance: (ms) => (t += ms) };
}

function ticket(r: Ticket | string): Ticket {
  assert.ok(typeof r !== 'string', `expected a ticket, got ${String(r)}`);
  return r;
}

test('dealer: a hash always deals the same hand of distinct cards within the deck', () => {
  const d = new Dealer(64, 6);
  for (let i = 0; i < 500; i++) {
    const h = flowHash('schema', `user-${i}`);
    const hand = d.dealIntoHand(h);
    assert.deepEqual(new Dealer(64, 6).dealIntoHand(h), hand, 'deterministic');
    assert.equal(new Set(hand).size, 6, `distinct cards: ${hand.join(',')}`);
    for (const c of hand) assert.ok(c >= 0 && c < 64);
  }
  // Different flows get different hands (nearly always).
  const hands = new Set<string>();
  for (let i = 0; i < 200; i++) hands.add(d.dealIntoHand(flowHash('schema', `u${i}`)).join(','));
  assert.ok(hands.size >= 199, `hands spread: ${hands.size}`);
  // Every card is dealt to someone.
  const seen = new Set<number>();
  for (let i = 0; i < 2000; i++) for (const c of new Dealer(16, 1).dealIntoHand(flowHash('s', String(i)))) seen.add(c);
  assert.equal(seen.size, 16);
});

test('flowHash depends on both the schema and the distinguisher', () => {
  assert.equal(flowHash('a', 'b'), flowHash('a', 'b'));
  assert.notEqual(flowHash('a', 'b'), flowHash('ab', ''));
  assert.notEqual(flowHash('a', 'b'), flowHash('a', 'c'));
  assert.ok(Number.isSafeInteger(flowHash('x'.repeat(100), 'y'.repeat(100))));
});

test('a Reject level runs up to its seats and rejects the rest with concurrency-limit', () => {
  const qs = new QueueSet({ concurrencyLimit: 2, queuing: null });
  const a = ticket(qs.start(1));
  const b = ticket(qs.start(2));
  assert.equal(a.state, 'executing');
  assert.equal(b.state, 'executing');
  assert.equal(qs.start(3), 'concurrency-limit');
  qs.finish(a);
  assert.equal(ticket(qs.start(3)).state, 'executing');
});

test('a Queue level queues when busy, rejects a full queue, and hands freed seats over', async () => {
  const qs = new QueueSet({ concurrencyLimit: 1, queuing: { queues: 1, handSize: 1, queueLengthLimit: 2 } });
  const first = ticket(qs.start(7));
  assert.equal(first.state, 'executing');
  const w1 = ticket(qs.start(7));
  const w2 = ticket(qs.start(7));
  assert.equal(w1.state, 'waiting');
  assert.equal(w2.state, 'waiting');
  assert.equal(qs.start(7), 'queue-full');
  assert.equal(qs.waiting, 2);
  const got = qs.wait(w1, 10_000);
  qs.finish(first);
  assert.equal(await got, true);
  assert.equal(w1.state, 'executing');
  assert.equal(qs.executing, 1);
  assert.equal(qs.waiting, 1);
  // w2 gives up after its wait limit: time-out, and it leaves the queue.
  assert.equal(await qs.wait(w2, 20), false);
  assert.equal(w2.reason, 'time-out');
  assert.equal(qs.waiting, 0);
  // A client that goes away: cancelled.
  const w3 = ticket(qs.start(7));
  const ac = new AbortController();
  const p = qs.wait(w3, 10_000, ac.signal);
  ac.abort();
  assert.equal(await p, false);
  assert.equal(w3.reason, 'cancelled');
  qs.finish(w1);
  assert.equal(qs.executing, 0);
});

test('fair queueing: a quiet flow is served before a flood that came first', () => {
  const clock = manualClock();
  const qs = new QueueSet({ concurrencyLimit: 1, queuing: { queues: 8, handSize: 1, queueLengthLimit: 100 } }, clock.now);
  const dealer = new Dealer(8, 1);
  // Two flows on different queues.
  const flood = 11;
  let quiet = 12;
  while (dealer.dealIntoHand(quiet)[0] === dealer.dealIntoHand(flood)[0]) quiet++;
  let running = ticket(qs.start(flood));
  const floodWaiting: Ticket[] = [];
  for (let i = 0; i < 20; i++) floodWaiting.push(ticket(qs.start(flood)));
  // Serve a few flood requests, 10 ms each.
  for (let i = 0; i < 3; i++) {
    clock.advance(10);
    qs.finish(running);
    running = floodWaiting.shift()!;
    assert.equal(running.state, 'executing');
  }
  const q = ticket(qs.start(quiet));
  assert.equal(q.state, 'waiting');
  clock.advance(10);
  qs.finish(running);
  assert.equal(q.state, 'executing', 'the quiet flow gets the next seat, ahead of 17 older flood requests');
  // Over a long run with both flows always waiting, seats alternate.
  const served = { flood: 0, quiet: 0 };
  let current = q;
  const quietWaiting: Ticket[] = [];
  for (let i = 0; i < 10; i++) quietWaiting.push(ticket(qs.start(quiet)));
  for (let i = 0; i < 20; i++) {
    clock.advance(10);
    qs.finish(current);
    const next = [...floodWaiting, ...quietWaiting].find((t) => t.state === 'executing');
    assert.ok(next !== undefined);
    if (floodWaiting.includes(next)) {
      served.flood++;
      floodWaiting.splice(floodWaiting.indexOf(next), 1);
    } else {
      served.quiet++;
      quietWaiting.splice(quietWaiting.indexOf(next), 1);
    }
    current = next;
  }
  assert.ok(Math.abs(served.flood - served.quiet) <= 2, `alternating: ${JSON.stringify(served)}`);
});

test('reconfiguring keeps waiting requests and dispatches into new seats', async () => {
  const qs = new QueueSet({ concurrencyLimit: 1, queuing: { queues: 4, handSize: 2, queueLengthLimit: 10 } });
  ticket(qs.start(1));
  const w = ticket(qs.start(2));
  assert.equal(w.state, 'waiting');
  const p = qs.wait(w, 10_000);
  qs.configure({ concurrencyLimit: 2, queuing: { queues: 2, handSize: 1, queueLengthLimit: 10 } });
  assert.equal(await p, true);
  assert.equal(qs.executing, 2);
});
