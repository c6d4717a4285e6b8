import { countWords } from '../../web/src/api/countWords';

/** The dashboard's count words (web/src/api/countWords.ts): exact counts in full, estimates in words. */
describe('countWords', () => {
  it('writes an exact count in full, grouped for the locale', () => {
    expect(countWords(1234567, false, 'en-GB')).toEqual({ text: '1,234,567', about: false });
    expect(countWords(1234567, undefined, 'de-DE')).toEqual({ text: '1.234.567', about: false });
  });

  it('writes an estimate rounded, in words of the locale', () => {
    expect(countWords(2_412_345, true, 'en-GB')).toEqual({ text: '2.4 million', about: true });
    expect(countWords(2_412_345, true, 'fr-FR')).toEqual({ text: '2,4 millions', about: true });
    expect(countWords(2_412_345, true, 'de-DE')).toEqual({ text: '2,4 Millionen', about: true });
    expect(countWords(1_000_000, true, 'en-GB').text).toBe('1 million');
  });
});
