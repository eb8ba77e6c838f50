/**
 * Shuffle sharding, after the original's shufflesharding.Dealer: a flow's
 * hash value deals it a hand of `handSize` distinct queues out of
 * `deckSize`, the same hand every time for the same hash. Two flows share
 * a whole hand only rarely, so a heavy flow fills its own queues and seldom
 * all of another's.
 *
 * The hash is at most 53 bits (a JS number); the original takes 64 and
 * checks the hand needs at most 60 bits of entropy. Deals that need more
 * than the hash holds still give a fixed, well-spread hand.
 */
export const MAX_HAND_SIZE = 15;

export class Dealer {
  readonly deckSize: number;
  readonly handSize: number;
  readonly #remainders: Int32Array;
  readonly #hand: Int32Array;

  constructor(deckSize: number, handSize: number) {
    if (!(deckSize >= 1) || !(handSize >= 1) || handSize > deckSize) throw new RangeError(`bad deal: handSize ${handSize} of deckSize ${deckSize}`);
    this.deckSize = deckSize;
    this.handSize = Math.min(handSize, MAX_HAND_SIZE);
    this.#remainders = new Int32Array(this.handSize);
    this.#hand = new Int32Array(this.handSize);
  }

  /** The hand `hashValue` deals, in a buffer reused by the next call (no allocation per deal). */
  dealShared(hashValue: number): Int32Array {
    this.deal(hashValue, undefined);
    return this.#hand;
  }

  /** Calls `pick` with each card of the hand `hashValue` deals, in order (and keeps the hand for dealShared). */
  deal(hashValue: number, pick: ((card: number) => void) | undefined): void {
    const rem = this.#remainders;
    let h = Math.floor(Math.abs(hashValue));
    for (let i = 0; i < this.handSize; i++) {
      const n = this.deckSize - i;
      const next = Math.floor(h / n);
      rem[i] = h - next * n;
      h = next;
    }
    for (let i = 0; i < this.handSize; i++) {
      // The original's trick: the i-th remainder indexes the cards not yet dealt.
      let card = rem[i]!;
      for (let j = i; j > 0; j--) if (card >= rem[j - 1]!) card++;
      this.#hand[i] = card;
      pick?.(card);
    }
  }

  /** The whole hand, for tests and diagnostics. */
  dealIntoHand(hashValue: number): number[] {
    const hand: number[] = [];
    this.deal(hashValue, (c) => hand.push(c));
    return hand;
  }
}
