import i18n from 'i18next';
import { fieldValueWords } from '../../web/src/components/contact/fieldValueWords';
import { startWebI18n } from '../helpers/webI18n';

/**
 * A contact field's value as the contact page reads it (web/src/components/contact/fieldValueWords.ts):
 * words for a boolean, a number and a date field in the dashboard's language, a string as it is; JSON
 * only for what has no such words (an object).
 */

beforeAll(startWebI18n);
afterAll(() => i18n.changeLanguage('en'));

const fr = { yes: 'oui', no: 'non' };

describe('a contact field value in words', () => {
  it('reads a string, a boolean, a number and a list as people read them, in French', async () => {
    await i18n.changeLanguage('fr');
    expect(fieldValueWords('Ada', 'string', fr)).toBe('Ada');
    expect(fieldValueWords(true, 'boolean', fr)).toBe('oui');
    expect(fieldValueWords(false, undefined, fr)).toBe('non');
    expect(fieldValueWords(1234.5, 'number', fr)).toBe('1\u202f234,5');
    expect(fieldValueWords(['a', 2, true], 'list', fr)).toBe('a, 2, oui');
    expect(fieldValueWords(null, undefined, fr)).toBe('—');
  });

  it('reads a date field’s day in the dashboard’s language, and leaves a date-like text field as written', async () => {
    await i18n.changeLanguage('fr');
    expect(fieldValueWords('2026-03-01', 'date', fr)).toBe('1 mars 2026');
    expect(fieldValueWords('2026-03-01', 'string', fr)).toBe('2026-03-01');
  });

  it('has no words for an object, which stays JSON', () => {
    expect(fieldValueWords({ plan: 'pro' }, 'object', fr)).toBeNull();
    expect(fieldValueWords([{ a: 1 }], 'list', fr)).toBeNull();
  });
});
