import { de } from '../../lib/publicCopy/de';
import { en } from '../../lib/publicCopy/en';
import { fr } from '../../lib/publicCopy/fr';
import { localeForContact, localeForVisitor, publicCopy } from '../../lib/publicCopy';

describe('the public pages’ catalogues', () => {
  it('hold every English key, each translated with the same placeholders', () => {
    const placeholders = (s: string) => [...s.matchAll(/\{\{(\w+)\}\}/g)].map((m) => m[1]).sort();
    for (const catalogue of [fr, de]) {
      expect(Object.keys(catalogue).sort()).toEqual(Object.keys(en).sort());
      for (const [key, words] of Object.entries(en)) {
        expect(placeholders(catalogue[key as keyof typeof en])).toEqual(placeholders(words));
        expect(catalogue[key as keyof typeof en].trim()).not.toBe('');
      }
    }
  });

  it('escape filled-in values for markup, and leave them for plain text', () => {
    const say = publicCopy('fr');
    expect(say.html('sub.state.subscribed', { email: '<b>a&b</b>@x.test' })).toBe('&lt;b&gt;a&amp;b&lt;/b&gt;@x.test est abonné à ces e-mails.');
    expect(say.html('sub.state.subscribed', { email: `"x'y"@x.test` })).not.toMatch(/["']/);
    expect(say.text('sub.unsubscribed.topicTitle', { topic: 'News & <Tips>' })).toBe('Vous êtes désabonné de News & <Tips>');
    expect(publicCopy('de').text('form.error.tooLong', { max: 1000 })).toBe('Höchstens 1000 Zeichen.');
  });

  it('choose a contact’s language: exact, then the language alone, else English', () => {
    expect(localeForContact('fr')).toBe('fr');
    expect(localeForContact('fr-CA')).toBe('fr');
    expect(localeForContact('de_at')).toBe('de');
    expect(localeForContact('es')).toBe('en');
    expect(localeForContact(undefined)).toBe('en');
    expect(localeForContact(42)).toBe('en');
  });

  it('choose a visitor’s language in the browser’s order of preference', () => {
    expect(localeForVisitor(['es', 'de-CH', 'fr'])).toBe('de');
    expect(localeForVisitor(['en-GB', 'fr'])).toBe('en');
    expect(localeForVisitor(['*'])).toBe('en');
    expect(localeForVisitor([])).toBe('en');
  });
});
