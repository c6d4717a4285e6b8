import { smtpTransport } from '../../services/smtpTransport';
import { loadConfig } from '../../lib/config';
import { startSmtpSink, SmtpSink } from '../helpers/smtpSink';
import { uniqueEmail } from '../helpers/fixtures';
import type { OutgoingMessage } from '../../services/transport';
import { emailIdOfReturnPath } from '../../lib/verp';

/**
 * The SMTP envelope is the transport's own, whatever the headers say: the real nodemailer pool
 * against the local SMTP server, handed a message whose headers name more addresses (as one stored
 * before the API refused them, or one built by a future caller, would). nodemailer alone derives
 * RCPT TO from every To/Cc/Bcc header.
 */

let sink: SmtpSink;
beforeAll(async () => {
  sink = await startSmtpSink();
});
afterAll(() => sink?.stop());

const message = (to: string, headers: Record<string, string>): OutgoingMessage => ({
  emailId: '00000000-0000-4000-8000-000000000001',
  projectId: '00000000-0000-4000-8000-000000000002',
  to: { email: to, name: 'Reader' },
  from: { email: 'hello@mail.example.com', name: 'Shop' },
  subject: 'Receipt',
  html: '<p>Thanks</p>',
  text: 'Thanks',
  headers,
  attachments: [],
});

describe('SMTP envelope', () => {
  it('says RCPT TO exactly the recipient and MAIL FROM the sender, even with Cc, Bcc, To and Sender headers handed to the transport', async () => {
    const config = loadConfig({ ...process.env, EMAIL_TRANSPORT: 'smtp', SMTP_URL: sink.url });
    const transport = smtpTransport(config, async () => null);
    const to = uniqueEmail('reader');
    const [bcc, cc, extra, sender] = [uniqueEmail('bcc'), uniqueEmail('cc'), uniqueEmail('to'), uniqueEmail('sender')];
    const before = sink.mails.length;
    await transport.send(message(to, { Bcc: bcc, cc, TO: extra, Sender: sender, 'Return-Path': sender, 'X-Tag': 'kept' }));

    expect(sink.mails.length).toBe(before + 1);
    const mail = sink.mails[before];
    expect(mail.to).toEqual([to]);
    // The VERP return path on the sender domain's bounces. subdomain, naming the email (lib/verp.ts).
    expect(mail.from).toMatch(/^bounces\+[0-9a-f]{52}@bounces\.mail\.example\.com$/);
    expect(emailIdOfReturnPath(config.jwtSecret, mail.from)).toBe('00000000-0000-4000-8000-000000000001');
    for (const other of [bcc, cc, extra, sender]) expect(sink.mailsTo(other)).toEqual([]);
    const parsed = await sink.parse(mail);
    expect(parsed.headers.get('x-tag')).toBe('kept');
  });

  it('offers each recipient of a campaign group on its own envelope', async () => {
    const config = loadConfig({ ...process.env, EMAIL_TRANSPORT: 'smtp', SMTP_URL: sink.url });
    const transport = smtpTransport(config, async () => null);
    const [a, b, hidden] = [uniqueEmail('a'), uniqueEmail('b'), uniqueEmail('hidden')];
    const before = sink.mails.length;
    const result = await transport.sendBatch({
      projectId: '00000000-0000-4000-8000-000000000002',
      campaignId: '00000000-0000-4000-8000-000000000003',
      from: { email: 'news@mail.example.com' },
      recipients: [a, b].map((email, i) => ({
        emailId: `00000000-0000-4000-8000-00000000001${i}`,
        to: { email },
        subject: 'News',
        html: '<p>n</p>',
        text: 'n',
        headers: { Bcc: hidden },
      })),
    });
    expect(result.accepted).toHaveLength(2);
    const mails = sink.mails.slice(before);
    expect(mails.map((m) => m.to).sort()).toEqual([[a], [b]].sort());
    expect(sink.mailsTo(hidden)).toEqual([]);
  });
});
