import fs from 'node:fs';
import path from 'node:path';
import { eventNameProblem, isReservedEventName, RESERVED_EVENT_FAMILIES } from '../../lib/reservedEvents';
import { slugify } from '../../db/slugs';
import { segmentEventName } from '../../db/segments';

describe('reserved event families', () => {
  it.each([
    'email.sent',
    'contact.updated',
    'segment.entry',
    'segment.vip.exit',
    'campaign.sent',
    'campaign.cancelled',
    'webhook.disabled',
    'webhook.test',
    'Campaign.Sent',
    'WEBHOOK.x',
  ])('reserves %s', (name) => expect(isReservedEventName(name)).toBe(true));

  it.each(['emails.sent', 'campaigns.sent', 'webhooks', 'email', 'signup', 'my.email.sent', '.email'])('leaves %s to callers', (name) => {
    expect(isReservedEventName(name)).toBe(false);
  });

  it('is the list docs/webhooks.md prints', () => {
    const doc = fs.readFileSync(path.join(__dirname, '..', '..', 'docs', 'webhooks.md'), 'utf8');
    const listed = /<!-- reserved-event-families -->(.*)<!-- \/reserved-event-families -->/.exec(doc)?.[1];
    expect(listed).toBe(RESERVED_EVENT_FAMILIES.map((f) => `\`${f}.*\``).join(', '));
  });
});

describe('the one event-name rule', () => {
  it.each([
    ['full-width c', '\uff43ampaign.sent'],
    ['full-width stop', 'campaign\uff0esent'],
    ['one dot leader', 'email\u2024bounced'],
    ['mathematical bold', '\u{1d41e}mail.sent'],
    ['full-width capitals', '\uff37\uff25\uff22\uff28\uff2f\uff2f\uff2b.test'],
  ])('reserves a compatibility form (%s) after NFKC', (_, name) => {
    expect(isReservedEventName(name)).toBe(true);
    expect(eventNameProblem(name, 'track')).toEqual({ code: 'reserved_event', message: expect.any(String) });
    // A workflow may listen for email.opened, never for a lookalike of it: nothing emits one.
    expect(eventNameProblem(name, 'listen')).toEqual({ code: 'reserved_event', message: expect.stringContaining('non-ASCII') });
  });

  it.each([
    ['zero-width space', 'campaign\u200b.sent', 'reserved_event'],
    ['zero-width joiner', 'c\u200dontact.subscribed', 'reserved_event'],
    ['word joiner', 'webhook.\u2060test', 'reserved_event'],
    ['byte order mark', '\ufeffemail.sent', 'reserved_event'],
    ['right-to-left override', 'signup\u202e', 'custom'],
    ['soft hyphen', 'sign\u00adup', 'custom'],
    ['combining grapheme joiner', 'sign\u034fup', 'custom'],
    ['Hangul filler', 'signup\u3164', 'custom'],
    ['tag character', 'signup\u{e0041}', 'custom'],
    ['variation selector', 'signup\ufe0f', 'custom'],
  ])('refuses an invisible character (%s) everywhere', (_, name, code) => {
    expect(eventNameProblem(name, 'track')).toEqual({ code, message: expect.stringContaining('invisible') });
    expect(eventNameProblem(name, 'listen')).toEqual({ code, message: expect.stringContaining('invisible') });
  });

  it('lets emitted names be listened for and caller names through, non-ASCII ones outside the families included', () => {
    for (const name of ['email.opened', 'segment.vip.entry', 'contact.topic.subscribed', 'campaign.sent', 'webhook.test']) {
      expect(eventNameProblem(name, 'listen')).toBeNull();
      expect(eventNameProblem(name, 'track')?.code).toBe('reserved_event');
    }
    for (const name of ['signup', 'café.commandé', '注文.完了', 'emails.sent', 'my.email.sent', 'signed up']) {
      expect(eventNameProblem(name, 'track')).toBeNull();
      expect(eventNameProblem(name, 'listen')).toBeNull();
    }
  });

  it('is met by the names the service emits itself (ASCII slugs), so a workflow can always listen for them', () => {
    for (const segment of ['Café VIP', 'ｖｉｐ users', 'Zero\u200bwidth', '注文']) {
      const name = segmentEventName(slugify(segment, 'segment'), 'entry');
      expect(name).toMatch(/^[\x21-\x7e]+$/);
      expect(eventNameProblem(name, 'listen')).toBeNull();
    }
  });
});
