import { loadConfig } from '../../lib/config';
import { sendgridTransport } from '../../services/sendgridTransport';
import { sesTransport } from '../../services/sesTransport';
import { startSendgridSink, SendgridSink } from '../helpers/sendgridSink';
import { startSesSink, SesSink } from '../helpers/sesSink';
import type { BatchRecipient, OutgoingMessage } from '../../services/transport';

/**
 * Both parts over the HTTP providers: the real SendGrid and SESv2 clients against the local sinks
 * (test/helpers/sendgridSink.ts, sesSink.ts), as the delivery activities hand them messages.
 */

let sendgrid: SendgridSink;
let ses: SesSink;
beforeAll(async () => {
  [sendgrid, ses] = await Promise.all([startSendgridSink(), startSesSink()]);
});
afterAll(async () => {
  await Promise.all([sendgrid?.stop(), ses?.stop()]);
});

const message: OutgoingMessage = {
  emailId: '00000000-0000-4000-8000-000000000001',
  projectId: '00000000-0000-4000-8000-000000000002',
  to: { email: 'reader@example.org' },
  from: { email: 'hello@mail.example.com' },
  subject: 'Receipt',
  html: '<p>Thanks, Ada</p>',
  text: 'Thanks, Ada',
  headers: {},
  attachments: [],
};

const sendgridConfig = () => loadConfig({ ...process.env, EMAIL_TRANSPORT: 'sendgrid', SENDGRID_API_KEY: 'SG.test-key', SENDGRID_API_URL: sendgrid.url });

describe('SendGrid', () => {
  beforeEach(() => sendgrid.clear());

  it('sends content text/plain first, then text/html', async () => {
    await sendgridTransport(sendgridConfig()).send(message);
    expect(sendgrid.messages).toHaveLength(1);
    expect(sendgrid.messages[0].body.content).toEqual([
      { type: 'text/plain', value: 'Thanks, Ada' },
      { type: 'text/html', value: '<p>Thanks, Ada</p>' },
    ]);
  });

  const recipient = (i: number, text: string): BatchRecipient => ({
    emailId: `00000000-0000-4000-8000-00000000001${i}`,
    to: { email: `r${i}@example.org` },
    subject: 'News',
    html: '<p>News</p>',
    text,
    headers: {},
  });
  const batch = (recipients: BatchRecipient[]) => ({
    projectId: message.projectId,
    campaignId: '00000000-0000-4000-8000-000000000003',
    from: message.from,
    recipients,
  });

  it('a campaign group sharing one content sends it once, text/plain first', async () => {
    await sendgridTransport(sendgridConfig()).sendBatch(batch([recipient(0, 'News'), recipient(1, 'News')]));
    const [sent] = sendgrid.messages;
    expect(sent.body.content).toEqual([
      { type: 'text/plain', value: 'News' },
      { type: 'text/html', value: '<p>News</p>' },
    ]);
    expect(sent.body.personalizations.every((p: any) => p.substitutions === undefined)).toBe(true);
  });

  it('recipients whose text parts differ (same HTML) each get their own text as a substitution', async () => {
    const transport = sendgridTransport(sendgridConfig());
    const recipients = [recipient(0, 'News for Ada'), recipient(1, 'News for Bob')];
    // Different text parts are different contents: they go as substitutions, not under one shared text.
    const groups = transport.splitBatch(recipients);
    expect(groups).toHaveLength(1);
    await transport.sendBatch(batch(groups[0]));
    const [sent] = sendgrid.messages;
    expect(sent.body.content.map((c: any) => c.type)).toEqual(['text/plain', 'text/html']);
    const plain = sent.body.content[0].value;
    const texts = sent.body.personalizations.map((p: any) =>
      Object.entries<string>(p.substitutions ?? {}).reduce((v, [tag, value]) => v.split(tag).join(value), plain),
    );
    expect(texts).toEqual(['News for Ada', 'News for Bob']);
  });
});

describe('SES', () => {
  it('sends Body.Text beside Body.Html', async () => {
    const config = loadConfig({
      ...process.env,
      EMAIL_TRANSPORT: 'ses',
      SES_REGION: 'eu-west-1',
      SES_ENDPOINT: ses.url,
      SES_ACCESS_KEY_ID: 'AKIDTESTKEY',
      SES_SECRET_ACCESS_KEY: 'test-secret',
    });
    await sesTransport(config).send(message);
    expect(ses.messages).toHaveLength(1);
    const body = ses.messages[0].body.Content.Simple.Body;
    expect(body.Text).toEqual({ Data: 'Thanks, Ada', Charset: 'UTF-8' });
    expect(body.Html).toEqual({ Data: '<p>Thanks, Ada</p>', Charset: 'UTF-8' });
  });
});
