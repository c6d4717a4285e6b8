import { Readable } from 'node:stream';
import { CsvParser, CsvSyntaxError, csvRecords, parseCsv } from '../../lib/csv';

/** Feeds the text one character per chunk: every state must survive a chunk boundary. */
function parseCharByChar(text: string): string[][] {
  const parser = new CsvParser();
  const out: string[][] = [];
  for (const c of text) out.push(...parser.push(c));
  return [...out, ...parser.end()];
}

const both = (text: string) => {
  const whole = parseCsv(text);
  expect(parseCharByChar(text)).toEqual(whole);
  return whole;
};

describe('parseCsv', () => {
  it('splits plain fields and rows', () => {
    expect(both('email,name\na@x.test,Ann\nb@x.test,Bob\n')).toEqual([
      ['email', 'name'],
      ['a@x.test', 'Ann'],
      ['b@x.test', 'Bob'],
    ]);
  });

  it('keeps a last row without a line end and adds none for a trailing line end', () => {
    expect(both('a,b\n1,2')).toEqual([
      ['a', 'b'],
      ['1', '2'],
    ]);
    expect(both('a,b\n1,2\n')).toEqual([
      ['a', 'b'],
      ['1', '2'],
    ]);
    expect(both('')).toEqual([]);
  });

  it('reads quoted fields with commas, escaped quotes and empty quotes', () => {
    expect(both('"a,b","say ""hi""","",""""\n')).toEqual([['a,b', 'say "hi"', '', '"']]);
  });

  it('keeps newlines inside quoted fields', () => {
    expect(both('name,note\nAnn,"line 1\nline 2\r\nline 3"\nBob,x\n')).toEqual([
      ['name', 'note'],
      ['Ann', 'line 1\nline 2\r\nline 3'],
      ['Bob', 'x'],
    ]);
  });

  it('accepts CRLF, LF and bare CR line ends, mixed', () => {
    expect(both('a,b\r\n1,2\n3,4\r5,6\r\n')).toEqual([
      ['a', 'b'],
      ['1', '2'],
      ['3', '4'],
      ['5', '6'],
    ]);
  });

  it('drops a leading byte order mark, and only a leading one', () => {
    expect(both('\uFEFFemail\na@x.test\n')).toEqual([['email'], ['a@x.test']]);
    expect(both('x\n\uFEFFy\n')).toEqual([['x'], ['\uFEFFy']]);
  });

  it('returns ragged rows as they are', () => {
    expect(both('a,b,c\n1\n1,2,3,4\n,\n')).toEqual([['a', 'b', 'c'], ['1'], ['1', '2', '3', '4'], ['', '']]);
  });

  it('reports blank lines as one empty cell so record numbers stay true', () => {
    expect(both('a\n\nb\r\n\r\nc')).toEqual([['a'], [''], ['b'], [''], ['c']]);
  });

  it('keeps a quote inside an unquoted field and text after a closing quote', () => {
    expect(both('5" screen,"a"b\n')).toEqual([['5" screen', 'ab']]);
  });

  it('refuses a quote left open at the end, naming its record', () => {
    expect(() => parseCsv('a\nb\n"open,\nmore')).toThrow(CsvSyntaxError);
    expect(() => parseCharByChar('a\nb\n"open,\nmore')).toThrow('unterminated quoted field in record 3');
  });
});

describe('csvRecords', () => {
  it('decodes a multi-byte character split across byte chunks', async () => {
    const bytes = Buffer.from('\uFEFFname\n"Zoë, ☃"\n', 'utf8');
    const chunks = Array.from(bytes, (b) => Buffer.from([b]));
    const rows: string[][] = [];
    for await (const r of csvRecords(Readable.from(chunks))) rows.push(r);
    expect(rows).toEqual([['name'], ['Zoë, ☃']]);
  });
});
