/** Latency samples and their percentiles. */
export class Samples {
  #values: number[] = [];

  add(micros: number): void {
    this.#values.push(micros);
  }

  get count(): number {
    return this.#values.length;
  }

  /** Percentiles (0..100) of what was added, in the same unit. */
  percentiles(...ps: number[]): number[] {
    const sorted = Float64Array.from(this.#values).sort();
    return ps.map((p) => (sorted.length === 0 ? NaN : sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!));
  }
}
