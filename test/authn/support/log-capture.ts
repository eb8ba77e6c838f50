/** An in-memory pino destination, so tests can read what the server logged. */
export interface LogCapture {
  readonly destination: { write(line: string): void };
  text(): string;
}

export function captureLogs(): LogCapture {
  const lines: string[] = [];
  return {
    destination: { write: (line: string) => void lines.push(line) },
    text: () => lines.join(''),
  };
}

/** The parts of a JWT-like token that must never show up in a log: the whole and each segment. */
export function secretPartsOf(token: string): string[] {
  return [token, ...token.split('.').filter((s) => s.length >= 8)];
}
