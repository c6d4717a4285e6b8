import { classifyReport, fieldGroups } from '../../services/inbound/reports';
import { parseInbound } from '../../services/inbound/parse';
import { arf, dsn, qmailBounce, reply } from '../helpers/inboundMail';

const TO = 'bounces+abc@bounces.example.com';
const FIXTURES: Record<string, Buffer> = {
  'dsn-hard': dsn({ to: TO, status: '5.1.1' }),
  'dsn-soft': dsn({ to: TO, status: '4.2.2', diagnostic: 'smtp; 452 4.2.2 Mailbox full' }),
  'qmail-hard': qmailBounce({ to: TO }),
  'arf-abuse': arf({ to: TO }),
  reply: reply({ from: 'reader@example.org', to: TO }),
};

async function reportOf(name: string) {
  const r = await parseInbound(FIXTURES[name]);
  if (!r.ok) throw new Error(r.reason);
  return r.mail.report;
}

describe('DSN and ARF classification', () => {
  it('reads an RFC 3464 failure with a 5.x.x status as a hard bounce, keeping the diagnostic', async () => {
    expect(await reportOf('dsn-hard')).toEqual({
      kind: 'bounce',
      hard: true,
      status: '5.1.1',
      diagnostic: 'smtp; 550 5.1.1 <reader@example.org>: Recipient address rejected: User unknown',
      recipient: 'reader@example.org',
    });
  });

  it('reads a 4.x.x status as a soft bounce', async () => {
    expect(await reportOf('dsn-soft')).toMatchObject({ kind: 'bounce', hard: false, status: '4.2.2' });
  });

  it('never reads a delay warning as a hard bounce, whatever its status says', () => {
    const r = classifyReport({
      subject: 'Delivery delayed',
      fromAddress: 'mailer-daemon@mx.example.org',
      deliveryStatus: ['Reporting-MTA: dns; mx\n\nFinal-Recipient: rfc822; a@example.org\nAction: delayed\nStatus: 5.0.0\n'],
      feedbackReport: [],
      text: '',
      failedRecipients: null,
    });
    expect(r).toMatchObject({ kind: 'bounce', hard: false });
  });

  it('does not call a success notification a bounce', () => {
    const r = classifyReport({
      subject: 'Delivered',
      fromAddress: 'postmaster@example.org',
      deliveryStatus: ['Reporting-MTA: dns; mx\n\nFinal-Recipient: rfc822; a@example.org\nAction: delivered\nStatus: 2.0.0\n'],
      feedbackReport: [],
      text: '',
      failedRecipients: null,
    });
    expect(r.kind).toBe('other');
  });

  it('reads the plain-text shapes (qmail) by their codes', async () => {
    expect(await reportOf('qmail-hard')).toMatchObject({ kind: 'bounce', hard: true, status: '5.1.1' });
  });

  it('reads an Exim bounce with X-Failed-Recipients and only a basic SMTP code', () => {
    const r = classifyReport({
      subject: 'Mail delivery failed: returning message to sender',
      fromAddress: 'mailer-daemon@mx.example.org',
      deliveryStatus: [],
      feedbackReport: [],
      text: 'A message that you sent could not be delivered.\n\n  someone@example.org\n    host mx.example.org said: 550 No such user here\n',
      failedRecipients: 'someone@example.org',
    });
    expect(r).toMatchObject({ kind: 'bounce', hard: true, status: '550', recipient: 'someone@example.org' });
  });

  it('reads a bounce-looking message without any code as soft: prose alone never suppresses', () => {
    const r = classifyReport({
      subject: 'failure notice',
      fromAddress: 'MAILER-DAEMON@x.org',
      deliveryStatus: [],
      feedbackReport: [],
      text: 'Sorry.',
      failedRecipients: null,
    });
    expect(r).toMatchObject({ kind: 'bounce', hard: false, status: null });
  });

  it('reads an RFC 5965 abuse report as a complaint, other feedback types as reports', async () => {
    expect(await reportOf('arf-abuse')).toEqual({ kind: 'complaint', feedbackType: 'abuse', recipient: 'reader@example.org' });
    const r = classifyReport({
      subject: null,
      fromAddress: 'fbl@isp.example',
      deliveryStatus: [],
      feedbackReport: ['Feedback-Type: not-spam\n'],
      text: '',
      failedRecipients: null,
    });
    expect(r.kind).toBe('other');
  });

  it('calls a plain message to a return path neither a bounce nor a complaint', async () => {
    expect((await reportOf('reply')).kind).toBe('other');
  });

  it("finds the Message-ID of the returned message in a DSN's headers part and an ARF report's message part", async () => {
    for (const raw of [dsn({ to: TO, status: '5.1.1', originalMessageId: 'abc@example.com' }), arf({ to: TO, originalMessageId: 'abc@example.com' })]) {
      const r = await parseInbound(raw);
      expect(r.ok && r.mail.originalMessageId).toBe('abc@example.com');
    }
    const plain = await parseInbound(FIXTURES.reply);
    expect(plain.ok && plain.mail.originalMessageId).toBeNull();
  });

  it('joins folded fields and groups them by blank lines', () => {
    expect(fieldGroups('A: 1\nB: two\n  parts\n\nC: 3\n').map((g) => Object.fromEntries(g))).toEqual([{ a: '1', b: 'two parts' }, { c: '3' }]);
  });
});
