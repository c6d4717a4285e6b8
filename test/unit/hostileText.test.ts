import { findRefusedText, hasRefusedCharacter } from '../../lib/hostileText';

describe('refused characters in request strings', () => {
  it.each([
    ['NUL', 'a\u0000b'],
    ['a lone high surrogate', 'a\ud800b'],
    ['a lone high surrogate at the end', 'a\ud800'],
    ['a lone low surrogate', '\udc00b'],
    ['a C0 control', 'a\u0001'],
    ['ESC', '\u001b[31m'],
    ['vertical tab', 'a\u000bb'],
    ['DEL', 'a\u007f'],
  ])('refuses %s', (_, s) => expect(hasRefusedCharacter(s)).toBe(true));

  it.each([
    ['plain text', 'Hello'],
    ['tab, LF and CR', 'a\tb\nc\r\n'],
    ['a surrogate pair (emoji)', 'hi \ud83d\ude00'],
    ['a bidi override', 'abc\u202edef'],
    ['right-to-left text', 'שלום'],
    ['C1 and other Unicode', 'caf\u00e9 \u0085'],
  ])('accepts %s', (_, s) => expect(hasRefusedCharacter(s)).toBe(false));

  it('names the field of a nested value, array items included', () => {
    expect(findRefusedText({ a: 'ok', data: { list: ['ok', { deep: 'x\u0000' }] } })).toEqual({ field: 'data.list.1.deep', inKey: false });
  });

  it('names the object holding a refused key', () => {
    expect(findRefusedText({ data: { profile: { 'k\ud800': 1 } } })).toEqual({ field: 'data.profile', inKey: true });
  });

  it('finds nothing in clean input and ignores non-strings', () => {
    expect(findRefusedText({ a: 1, b: null, c: [true, 'x'], d: { e: 'f' } })).toBeNull();
  });

  it('names the root for a refused top-level string', () => {
    expect(findRefusedText('\u0000')).toEqual({ field: '(root)', inKey: false });
  });
});
