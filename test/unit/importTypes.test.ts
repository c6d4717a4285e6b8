import { inferType } from '../../lib/contactData';
import { convertCell, guessType } from '../../lib/importTypes';
import { previewImport } from '../../services/contactImport';

async function* records(rows: string[][]) {
  yield* rows;
}

describe('guessType', () => {
  it('guesses number when every non-empty value is one', () => {
    expect(guessType(['12', '', '3.5', '-4', '1e3'])).toBe('number');
  });

  it('keeps leading-zero codes as text (a zip code is not a number)', () => {
    expect(guessType(['02134', '90210'])).toBe('string');
    expect(guessType(['0', '0.25'])).toBe('number');
  });

  it('guesses boolean for true/false/yes/no words, and reads 1/0 alone as numbers', () => {
    expect(guessType(['true', 'FALSE', 'yes', 'No'])).toBe('boolean');
    expect(guessType(['1', '0', '1'])).toBe('number');
    expect(guessType(['yes', '1', '0'])).toBe('boolean');
  });

  it('guesses date for ISO dates only, not for days the calendar lacks or local formats', () => {
    expect(guessType(['2024-03-01', '2024-03-01T10:00:00Z', '2024-03-01 10:00'])).toBe('date');
    expect(guessType(['2024-02-30'])).toBe('string');
    expect(guessType(['03/04/2024'])).toBe('string');
  });

  it('falls back to text on one misfit or when there is nothing to go on', () => {
    expect(guessType(['12', 'abc'])).toBe('string');
    expect(guessType(['', '  '])).toBe('string');
    expect(guessType([])).toBe('string');
    expect(guessType(['0x10'])).toBe('string');
  });
});

describe('convertCell', () => {
  it('converts to the stored value of each type', () => {
    expect(convertCell('number', ' 42.5 ')).toEqual({ value: 42.5 });
    expect(convertCell('number', '02134')).toEqual({ value: 2134 });
    expect(convertCell('boolean', 'Yes')).toEqual({ value: true });
    expect(convertCell('boolean', '0')).toEqual({ value: false });
    expect(convertCell('string', ' as written ')).toEqual({ value: ' as written ' });
  });

  it('stores dates in the shapes the field registry types as dates', () => {
    const day = convertCell('date', '2024-03-01');
    const instant = convertCell('date', '2024-03-01T12:30:00+02:00');
    const noZone = convertCell('date', '2024-03-01 10:00');
    expect(day).toEqual({ value: '2024-03-01' });
    expect(instant).toEqual({ value: '2024-03-01T10:30:00.000Z' });
    expect(noZone).toEqual({ value: '2024-03-01T10:00:00.000Z' });
    for (const c of [day, instant, noZone]) expect(inferType((c as { value: unknown }).value)).toBe('date');
  });

  it('says why a value does not fit', () => {
    expect(convertCell('number', 'abc')).toEqual({ problem: 'is not a number' });
    expect(convertCell('number', 'Infinity')).toEqual({ problem: 'is not a number' });
    expect(convertCell('boolean', 'maybe')).toMatchObject({ problem: expect.stringContaining('is not true or false') });
    expect(convertCell('date', '2024-13-01')).toMatchObject({ problem: expect.stringContaining('is not a date') });
    expect(convertCell('date', '2024-03-01T25:00:00Z')).toMatchObject({ problem: expect.stringContaining('is not a date') });
  });
});

describe('previewImport', () => {
  it('returns the header, the first rows and a guessed type per column; email and subscribed keep their role', async () => {
    const preview = await previewImport(
      records([
        ['Email', 'Score', 'vip', 'joined', 'zip'],
        ['a@x.test', '10', 'yes', '2024-01-02', '02134'],
        ['', '', '', '', ''],
        ['b@x.test', '', 'no', '2024-01-03', '10001'],
      ]),
    );
    expect(preview.columns.map((c) => [c.column, c.key, c.type])).toEqual([
      ['Email', 'email', 'string'],
      ['Score', 'Score', 'number'],
      ['vip', 'vip', 'boolean'],
      ['joined', 'joined', 'date'],
      ['zip', 'zip', 'string'],
    ]);
    expect(preview.rows).toHaveLength(2);
    expect(preview.columns[1].samples).toEqual(['10', '']);
  });
});
