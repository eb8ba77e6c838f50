/**
 * CSV records as Go's encoding/csv reads them with the options the original
 * token file loader uses (comma separator, variable field counts, strict
 * quoting): quoted fields may hold commas, doubled quotes and newlines; a
 * quote inside an unquoted field, or text after a closing quote, is an error.
 * One difference, on purpose: lines holding only whitespace are skipped like
 * empty lines instead of becoming one-field records.
 *
 * Error messages give positions, never field contents (the fields here are
 * secrets).
 */

export interface CsvRecord {
  readonly fields: readonly string[];
  /** 1-based line on which the record starts. */
  readonly line: number;
}

export class CsvError extends Error {}

const ERR_BARE_QUOTE = 'bare " in non-quoted-field';
const ERR_QUOTE = 'extraneous or missing " in quoted-field';

export function parseCsv(text: string): CsvRecord[] {
  const records: CsvRecord[] = [];
  const n = text.length;
  let i = 0;
  let line = 1;
  let lineStart = 0;

  const fail = (startLine: number, err: string): never => {
    const column = i - lineStart + 1;
    throw new CsvError(
      startLine !== line
        ? `record on line ${startLine}; parse error on line ${line}, column ${column}: ${err}`
        : `parse error on line ${line}, column ${column}: ${err}`,
    );
  };
  const atEndOfLine = (): boolean => i >= n || text[i] === '\n' || (text[i] === '\r' && text[i + 1] === '\n');
  const consumeNewline = (): void => {
    if (text[i] === '\r') i++;
    if (text[i] === '\n') i++;
    line++;
    lineStart = i;
  };

  while (i < n) {
    let eol = text.indexOf('\n', i);
    if (eol === -1) eol = n;
    if (text.slice(i, eol).trim() === '') {
      i = eol;
      consumeNewline();
      continue;
    }

    const startLine = line;
    const fields: string[] = [];
    for (;;) {
      let value = '';
      if (text[i] === '"') {
        i++;
        for (;;) {
          if (i >= n) fail(startLine, ERR_QUOTE);
          const c = text[i]!;
          if (c === '"') {
            if (text[i + 1] === '"') {
              value += '"';
              i += 2;
              continue;
            }
            i++;
            break;
          }
          if (c === '\n' || (c === '\r' && text[i + 1] === '\n')) {
            value += '\n'; // Go normalises \r\n to \n inside quoted fields
            consumeNewline();
            continue;
          }
          value += c;
          i++;
        }
        if (!atEndOfLine() && text[i] !== ',') fail(startLine, ERR_QUOTE);
      } else {
        const begin = i;
        while (!atEndOfLine() && text[i] !== ',') {
          if (text[i] === '"') fail(startLine, ERR_BARE_QUOTE);
          i++;
        }
        value = text.slice(begin, i);
      }
      fields.push(value);
      if (text[i] === ',') {
        i++;
        continue;
      }
      if (i < n) consumeNewline();
      break;
    }
    records.push({ fields, line: startLine });
  }
  return records;
}
