import { newRssDraft, rssBodyOf, runOutcome, scheduleText } from '../../web/src/api/rssCampaigns';
import i18n from 'i18next';
import { startWebI18n } from '../helpers/webI18n';

beforeAll(startWebI18n);

/** The RSS campaign form's and page's own logic (web/src/api/rssCampaigns.ts): the body it posts, the words it shows. */

const tree = { logic: 'AND' as const, groups: [{ filters: [{ field: 'email', operator: 'contains' as const, value: '' }] }] };

describe('the RSS campaign body', () => {
  it("is the API's RSS body: the weekday only when weekly, the unused audience parts null", () => {
    const draft = { ...newRssDraft(tree, 'Europe/Paris'), name: 'Digest', feedUrl: ' https://blog.example.com/feed.xml ', template: 't1', weekday: 5 };
    expect(rssBodyOf(draft)).toEqual({
      kind: 'RSS',
      name: 'Digest',
      feedUrl: 'https://blog.example.com/feed.xml',
      schedule: { frequency: 'weekly', time: '09:00', timezone: 'Europe/Paris', weekday: 5 },
      template: 't1',
      type: 'MARKETING',
      audienceType: 'ALL',
      segmentId: null,
      audienceCondition: null,
      archive: false,
    });
    const daily = rssBodyOf({ ...draft, frequency: 'daily', audienceType: 'FILTERED', segmentId: 's1' });
    expect(daily.schedule).toEqual({ frequency: 'daily', time: '09:00', timezone: 'Europe/Paris' });
    expect(daily).toMatchObject({ segmentId: null, audienceCondition: tree });
  });
});

describe('the words of the RSS page', () => {
  it("names the schedule and each run's outcome", () => {
    expect(scheduleText({ frequency: 'weekly', time: '09:30', timezone: 'Europe/Paris', weekday: 1 })).toBe('Weekly on Monday at 09:30 (Europe/Paris)');
    expect(scheduleText({ frequency: 'daily', time: '07:00', timezone: 'UTC', weekday: null })).toBe('Daily at 07:00 (UTC)');
    const done = { finishedAt: '2026-11-29T00:00:00Z', error: null };
    expect(runOutcome({ ...done, status: 'SENT', itemCount: 2 })).toBe('2 new items');
    expect(runOutcome({ ...done, status: 'SENT', itemCount: 1 })).toBe('1 new item');
    expect(runOutcome({ ...done, status: 'NOTHING_NEW', itemCount: 0 })).toBe('Nothing new');
    expect(runOutcome({ ...done, status: 'FAILED', itemCount: 0, error: 'refused' })).toBe('Failed: refused');
  });

  it("says them in the dashboard's language: French and German weekdays, singulars and plurals", async () => {
    const weekly = { frequency: 'weekly' as const, time: '09:30', timezone: 'Europe/Paris', weekday: 1 };
    const done = { finishedAt: '2026-11-29T00:00:00Z', error: null };
    try {
      await i18n.changeLanguage('fr');
      expect(scheduleText(weekly)).toBe('Chaque lundi à 09:30 (Europe/Paris)');
      expect(runOutcome({ ...done, status: 'SENT', itemCount: 1 })).toBe('1 nouvel article');
      expect(runOutcome({ ...done, status: 'SENT', itemCount: 2 })).toBe('2 nouveaux articles');
      await i18n.changeLanguage('de');
      expect(scheduleText(weekly)).toBe('Jeden Montag um 09:30 (Europe/Paris)');
      expect(runOutcome({ ...done, status: 'NOTHING_NEW', itemCount: 0 })).toBe('Nichts Neues');
    } finally {
      await i18n.changeLanguage('en');
    }
  });
});
