import fs from 'node:fs';
import path from 'node:path';
import { isReservedEventName, RESERVED_EVENT_FAMILIES } from '../../lib/reservedEvents';

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
