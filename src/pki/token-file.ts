/**
 * The static token file read by `--token-auth-file`: CSV lines of
 * `token,user,uid,"group1,group2"` (the groups column optional). Only what the
 * data dir needs: find a user's token, and format a new line.
 */
import { randomBytes } from 'node:crypto';

export interface TokenRecord {
  token: string;
  user: string;
  uid: string;
  groups: string[];
}

/** 32 random bytes, base64url: 43 characters, safe unquoted in CSV and YAML. */
export function newBearerToken(): string {
  return randomBytes(32).toString('base64url');
}

export function formatTokenRecord(record: TokenRecord): string {
  const fields = [record.token, record.user, record.uid].map(csvField);
  // The groups column is quoted even for one group, as the documented format shows.
  if (record.groups.length > 0) fields.push(`"${record.groups.join(',').replaceAll('"', '""')}"`);
  return fields.join(',');
}

/** Parses the records; lines with fewer than three fields are skipped. */
export function parseTokenFile(text: string): TokenRecord[] {
  const records: TokenRecord[] = [];
  for (const fields of parseCsv(text)) {
    if (fields.length < 3) continue;
    const [token = '', user = '', uid = '', groups] = fields;
    records.push({ token, user, uid, groups: groups ? groups.split(',') : [] });
  }
  return records;
}

function csvField(value: string): string {
  return /[",\r\n]|^\s/.test(value) ? `"${value.replaceAll('"', '""')}"` : value;
}

/** RFC 4180 records: quoted fields, doubled quotes, CRLF or LF; blank lines dropped. */
function parseCsv(text: string): string[][] {
  const records: string[][] = [];
  let fields: string[] = [];
  let field = '';
  let quoted = false;
  let fieldStarted = false;
  const endRecord = () => {
    if (fieldStarted || fields.length > 0) records.push([...fields, field]);
    fields = [];
    field = '';
    fieldStarted = false;
  };
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (quoted) {
      if (ch !== '"') field += ch;
      else if (text[i + 1] === '"') (field += '"'), i++;
      else quoted = false;
    } else if (ch === '"') {
      quoted = true;
      fieldStarted = true;
    } else if (ch === ',') {
      fields.push(field);
      field = '';
      fieldStarted = true;
    } else if (ch === '\n' || ch === '\r') {
      if (ch === '\r' && text[i + 1] === '\n') i++;
      endRecord();
    } else {
      field += ch;
      fieldStarted = true;
    }
  }
  endRecord();
  return records;
}
