import { readSubmittedMessage, literalLiquid } from '../../submission/message';
import { renderTemplate } from '../../services/render';

/** A submitted message as /v1/send's request (submission/message.ts): what comes from the envelope, what from the message. */

const raw = (lines: string[]) => Buffer.from(`${lines.join('\r\n')}\r\n`);

describe('readSubmittedMessage', () => {
  it('takes the recipients from the envelope only, with the names the To and Cc headers give them', async () => {
    const { request, messageId } = await readSubmittedMessage(
      raw([
        'From: Shop <hello@shop.example>',
        'To: Ann <ann@example.org>, header-only@example.org',
        'Cc: Bob <bob@example.org>',
        'Bcc: hidden@example.org',
        'Reply-To: help@shop.example',
        'Subject: Receipt',
        'Message-ID: <m1@shop.example>',
        '',
        'Thanks.',
      ]),
      { mailFrom: 'bounce@shop.example', rcptTo: ['ann@example.org', 'BOB@example.org', 'bcc-only@example.org'] },
    );
    expect(request.to).toEqual([
      { email: 'ann@example.org', name: 'Ann' },
      { email: 'BOB@example.org', name: 'Bob' },
      { email: 'bcc-only@example.org', name: undefined },
    ]);
    expect(request.from).toEqual({ email: 'hello@shop.example', name: 'Shop' });
    expect(request.reply).toBe('help@shop.example');
    expect(messageId).toBe('<m1@shop.example>');
    expect(request.text?.trim()).toBe('Thanks.');
    // A text-only message still gets an HTML part.
    expect(request.body).toContain('Thanks.');
  });

  it("keeps the headers /v1/send's header policy allows, and drops the rest", async () => {
    const { request } = await readSubmittedMessage(
      raw([
        'From: hello@shop.example',
        'To: ann@example.org',
        'Subject: Hi',
        'Sender: someone@else.example',
        'Return-Path: <x@else.example>',
        'List-Unsubscribe: <mailto:x@else.example>',
        'X-SMTPAPI: {"to":["more@example.org"]}',
        'X-Order: 42',
        'In-Reply-To: <earlier@shop.example>',
        '',
        'Hi',
      ]),
      { mailFrom: 'hello@shop.example', rcptTo: ['ann@example.org'] },
    );
    expect(request.headers).toEqual({ 'X-Order': '42', 'In-Reply-To': '<earlier@shop.example>' });
  });

  it('falls back to the envelope sender without a From header', async () => {
    const { request } = await readSubmittedMessage(raw(['To: ann@example.org', 'Subject: Hi', '', 'Hi']), {
      mailFrom: 'app@shop.example',
      rcptTo: ['ann@example.org'],
    });
    expect(request.from).toEqual({ email: 'app@shop.example' });
  });
});

describe('literalLiquid', () => {
  it('renders back exactly what was submitted, Liquid syntax included', async () => {
    const subject = 'Order {{ id }} {% if x %}';
    const html = '<p>{{ name }} {%- raw -%} {% endraw %} & }}</p>';
    const text = 'Hi {{ name }}';
    const out = await renderTemplate(
      { subject: literalLiquid(subject), body: literalLiquid(html), text: literalLiquid(text) },
      { id: 7, name: 'Ann', x: true },
    );
    expect(out.subject).toBe(subject);
    expect(out.body).toBe(html);
    expect(out.text).toBe(text);
  });
});
