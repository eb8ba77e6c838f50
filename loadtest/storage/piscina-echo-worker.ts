/** Piscina task for the round-trip ceiling: returns its input. */
export default function echo(n: number): number {
  return n;
}
