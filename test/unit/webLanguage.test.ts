import i18n from 'i18next';
import { api, forProject } from '../../web/src/api/client';
import { startWebI18n } from '../helpers/webI18n';

/** The dashboard asks the API for its own language (web/src/api/client.ts), so a 422's field sentences read in it. */

beforeAll(startWebI18n);
afterAll(() => i18n.changeLanguage('en'));

/** The Accept-Language of one call through the dashboard's client. */
async function sentLanguage(headers?: Record<string, string>): Promise<string | null> {
  let sent: string | null = null;
  const fetch = async (request: Request) => {
    sent = request.headers.get('Accept-Language');
    return new Response('{}', { status: 200, headers: { 'Content-Type': 'application/json' } });
  };
  // Node's Request needs an absolute address; the dashboard's is its page's origin.
  await api.GET('/config', { fetch, headers, baseUrl: 'http://dashboard.test' });
  return sent;
}

describe('the language the dashboard asks the API for', () => {
  it('is the dashboard’s current language on every call, and on a raw fetch’s headers', async () => {
    expect(await sentLanguage()).toBe('en');
    await i18n.changeLanguage('fr');
    expect(await sentLanguage()).toBe('fr');
    expect(forProject('p1')).toEqual({ 'X-Project-Id': 'p1', 'Accept-Language': 'fr' });
    await i18n.changeLanguage('de');
    expect(await sentLanguage()).toBe('de');
    // A call that names a language itself keeps it.
    expect(await sentLanguage({ 'Accept-Language': 'fr' })).toBe('fr');
  });
});
