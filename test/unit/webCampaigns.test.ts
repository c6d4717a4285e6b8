import { bodyOf, draftOf, sendBodyOf, splitAddress, zonedToUtc, contactsText, percent, type Campaign } from '../../web/src/api/campaigns';
import i18n from 'i18next';
import { startWebI18n } from '../helpers/webI18n';

beforeAll(startWebI18n);

/** The campaign composer's own logic (web/src/api/campaigns.ts): the API body it sends and the schedule's instant. */

const tree = { logic: 'AND' as const, groups: [{ filters: [{ field: 'email', operator: 'contains' as const, value: '' }] }] };

describe('a date-time in a chosen time zone', () => {
  it('is the UTC instant at which that zone reads it, across offsets and changes of offset', () => {
    expect(zonedToUtc('2030-01-15T09:30', 'Asia/Tokyo').toISOString()).toBe('2030-01-15T00:30:00.000Z');
    expect(zonedToUtc('2026-12-01T09:00', 'Europe/Paris').toISOString()).toBe('2026-12-01T08:00:00.000Z');
    expect(zonedToUtc('2026-07-01T09:00', 'Europe/Paris').toISOString()).toBe('2026-07-01T07:00:00.000Z');
    expect(zonedToUtc('2026-07-01T09:00', 'America/New_York').toISOString()).toBe('2026-07-01T13:00:00.000Z');
    expect(zonedToUtc('2026-03-29T12:00:30', 'UTC').toISOString()).toBe('2026-03-29T12:00:30.000Z');
    // The day Paris moves its clocks forward (02:00 → 03:00): after the change, +2.
    expect(zonedToUtc('2026-03-29T04:00', 'Europe/Paris').toISOString()).toBe('2026-03-29T02:00:00.000Z');
    expect(() => zonedToUtc('tomorrow', 'UTC')).toThrow(/not a local date-time/);
  });

  it('makes the send body: nothing for now, an instant, or a local time with recipientTimezone', () => {
    expect(sendBodyOf({ kind: 'now' })).toEqual({});
    expect(sendBodyOf({ kind: 'at', local: '2030-01-15T09:30', timeZone: 'Asia/Tokyo' })).toEqual({ scheduledFor: '2030-01-15T00:30:00.000Z' });
    expect(sendBodyOf({ kind: 'local', local: '2030-01-15T09:30' })).toEqual({ scheduledFor: '2030-01-15T09:30:00', recipientTimezone: true });
  });
});

describe('the composer draft', () => {
  it("becomes the API's body: the sender joined, the unused audience null, an A/B test led by the subject", () => {
    const d = {
      ...draftOf(null, tree),
      name: 'Sale',
      subject: 'A',
      fromLocal: 'news',
      fromDomain: 'example.com',
      audienceType: 'FILTERED' as const,
      sendRate: '60',
      segmentId: 'seg',
    };
    d.ab = { on: true, subjects: ['B'], testPercent: '20', amount: '4', unit: 'hours', metric: 'opens' };
    expect(bodyOf(d)).toMatchObject({
      name: 'Sale',
      from: 'news@example.com',
      fromName: null,
      replyTo: null,
      text: null,
      segmentId: null,
      audienceCondition: tree,
      sendRatePerMinute: 60,
      abTest: { subjects: ['A', 'B'], testPercent: 20, winnerAfter: { amount: 4, unit: 'hours' }, metric: 'opens' },
    });
    // Not a number: sent as typed, so the API's 422 names the field.
    expect(bodyOf({ ...d, sendRate: 'fast' }).sendRatePerMinute).toBe('fast');
    expect(bodyOf({ ...d, sendRate: '' }).sendRatePerMinute).toBeNull();
    expect(bodyOf({ ...d, audienceType: 'SEGMENT' })).toMatchObject({ segmentId: 'seg', audienceCondition: null });
    // A blocks campaign sends its document and no body (the server compiles one from it).
    const document = { version: 1 as const, settings: {}, blocks: [] };
    const blocks = bodyOf({ ...d, editor: 'blocks', document });
    expect(blocks).toMatchObject({ editor: 'blocks', document });
    expect(blocks).not.toHaveProperty('body');
    expect(bodyOf(d)).toMatchObject({ editor: 'html', body: d.body });
  });

  it('round-trips a stored campaign (the unchanged draft is not dirty)', () => {
    const c = {
      name: 'Sale',
      type: 'MARKETING',
      subject: 'A',
      from: 'news@example.com',
      fromName: 'Team',
      replyTo: null,
      body: '<p>x</p>',
      text: null,
      audienceType: 'SEGMENT',
      segmentId: 'seg',
      audienceCondition: null,
      sendRatePerMinute: null,
      abTest: { subjects: ['A', 'B', 'C'], testPercent: 10, winnerAfter: { amount: 1, unit: 'days' }, metric: 'clicks' },
    } as unknown as Campaign;
    const body = bodyOf(draftOf(c, tree));
    expect(body).toMatchObject({ from: 'news@example.com', fromName: 'Team', segmentId: 'seg', audienceCondition: null, abTest: c.abTest });
    expect(splitAddress('"a@b"@example.com')).toEqual(['"a@b"', 'example.com']);
    expect(contactsText(1)).toBe('1 contact');
    expect(contactsText(1200)).toBe('1,200 contacts');
    // An estimated audience (GET /campaigns/:id/audience `estimated: true`) says so, rounded; exact stays exact.
    expect(contactsText(2_412_345, true)).toBe('about 2.4 million contacts');
    expect(contactsText(2_412_345, false)).toBe('2,412,345 contacts');
    expect(percent(2 / 3)).toBe('66.7%');
  });

  it("counts and rates in the dashboard's language (French: 0 and 1 are singular; its spaces are narrow no-break ones)", async () => {
    try {
      await i18n.changeLanguage('fr');
      expect(contactsText(0)).toBe('0 contact');
      expect(contactsText(1200).replace(/\s/g, ' ')).toBe('1 200 contacts');
      expect(percent(2 / 3).replace(/\s/g, ' ')).toBe('66,7 %');
      await i18n.changeLanguage('de');
      expect(contactsText(1)).toBe('1 Kontakt');
      expect(contactsText(1200)).toBe('1.200 Kontakte');
      expect(contactsText(2_412_345, true)).toBe('etwa 2,4 Millionen Kontakte');
    } finally {
      await i18n.changeLanguage('en');
    }
  });
});
