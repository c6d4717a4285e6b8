import { StringDecoder } from 'node:string_decoder';

/**
 * A streaming RFC 4180 CSV parser: quoted fields, `""` escapes, newlines inside quotes, CRLF, LF
 * or bare CR line ends, and a leading BOM. Chunks may split anywhere (even between the two quotes
 * of an escape or between CR and LF), so a file is parsed without ever being held whole.
 *
 * It is lenient where real exports are sloppy: rows may have any number of cells, a quote inside
 * an unquoted field is kept as a character. The one error is a quote left open at the end, because
 * it would silently swallow the rest of the file into a single cell.
 */

export class CsvSyntaxError extends Error {
  constructor(readonly record: number) {
    super(`unterminated quoted field in record ${record}`);
  }
}

/** The characters that end a run of an unquoted field's ordinary characters. */
const SPECIAL = /[,\r\n"]/g;

export class CsvParser {
  private field = '';
  private row: string[] = [];
  private inQuotes = false;
  /** The previous character closed a quoted section: a `"` now is an escaped quote. */
  private justClosed = false;
  /** The previous character was a CR: an LF now belongs to the same line end. */
  private afterCR = false;
  /** Anything seen since the last row ended (so a final line without a line end still counts). */
  private dirty = false;
  private atStart = true;
  private records = 0;

  /**
   * Complete records found in this chunk. A blank line is a record of one empty cell. Runs of
   * ordinary characters are copied as slices (found with indexOf or one regex step), not one
   * character at a time: parsing was most of an import request's CPU.
   */
  push(chunk: string): string[][] {
    const out: string[][] = [];
    let i = 0;
    if (this.atStart && chunk.length > 0) {
      this.atStart = false;
      if (chunk.charCodeAt(0) === 0xfeff) i = 1;
    }
    while (i < chunk.length) {
      if (this.inQuotes) {
        const q = chunk.indexOf('"', i);
        if (q === -1) {
          this.field += chunk.slice(i);
          break;
        }
        this.field += chunk.slice(i, q);
        this.inQuotes = false;
        this.justClosed = true;
        i = q + 1;
        continue;
      }
      const c = chunk[i];
      const closed = this.justClosed;
      const cr = this.afterCR;
      this.justClosed = false;
      this.afterCR = false;
      if (c === '\n' && cr) {
        i++;
        continue;
      }
      if (c === '\r' || c === '\n') {
        this.afterCR = c === '\r';
        out.push(this.endRow());
        i++;
        continue;
      }
      this.dirty = true;
      if (c === ',') {
        this.row.push(this.field);
        this.field = '';
        i++;
      } else if (c === '"' && closed) {
        this.field += '"';
        this.inQuotes = true;
        i++;
      } else if (c === '"' && this.field === '') {
        this.inQuotes = true;
        i++;
      } else {
        // An ordinary character (or a quote inside an unquoted field): it and those after it up to the next special one.
        SPECIAL.lastIndex = i + 1;
        const end = SPECIAL.exec(chunk)?.index ?? chunk.length;
        this.field += chunk.slice(i, end);
        i = end;
      }
    }
    return out;
  }

  /** The last record when the input did not end with a line end; throws on an open quote. */
  end(): string[][] {
    if (this.inQuotes) throw new CsvSyntaxError(this.records + 1);
    return this.dirty ? [this.endRow()] : [];
  }

  private endRow(): string[] {
    const row = [...this.row, this.field];
    this.row = [];
    this.field = '';
    this.dirty = false;
    this.records++;
    return row;
  }
}

/** Every record of a whole string. */
export function parseCsv(text: string): string[][] {
  const parser = new CsvParser();
  return [...parser.push(text), ...parser.end()];
}

/** Records of a stream of UTF-8 bytes or text; a character split across two chunks is decoded whole. */
export async function* csvRecords(chunks: AsyncIterable<string | Uint8Array>): AsyncGenerator<string[]> {
  const parser = new CsvParser();
  const decoder = new StringDecoder('utf8');
  for await (const chunk of chunks) yield* parser.push(decoder.write(chunk));
  yield* parser.push(decoder.end());
  yield* parser.end();
}

/**
 * One CSV record (RFC 4180, CRLF-terminated) from its cells. A cell a spreadsheet would run as a
 * formula (it starts with `=`, `+`, `-`, `@`, a tab or CR: CSV injection) gets a leading `'`, so
 * exported contact data cannot execute in the spreadsheet it is opened in.
 */
export function csvLine(cells: string[]): string {
  return `${cells
    .map((cell) => {
      const safe = /^[=+\-@\t\r]/.test(cell) ? `'${cell}` : cell;
      return /[",\r\n]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
    })
    .join(',')}\r\n`;
}
