import { simpleParser } from 'mailparser';
import { startHarness, createProjectFixture, bearer, eventually, Harness, ProjectFixture } from '../helpers/harness';
import { startSmtpSink, SmtpSink } from '../helpers/smtpSink';
import { uniqueEmail, verifiedDomain } from '../helpers/fixtures';

/**
 * The text/plain part end to end: /v1/send through the real worker and the real SMTP transport
 * (nodemailer) into the local SMTP server, the received MIME parsed with mailparser; and the
 * optional `text` source stored and answered by templates and campaigns.
 */

let h: Harness;
let p: ProjectFixture;
let sink: SmtpSink;
const DOMAIN = 'mail.example.com';

beforeAll(async () => {
  sink = await startSmtpSink();
  h = await startHarness({ worker: true, env: { EMAIL_TRANSPORT: 'smtp', SMTP_URL: sink.url, SEND_RATE_PER_SECOND: '100000' } });
  p = await createProjectFixture(h);
  await verifiedDomain(h, p.projectId, DOMAIN);
});
afterAll(async () => {
  await h?.stop();
  await sink?.stop();
});

const key = () => bearer(p.secretKey);

async function received(to: string) {
  const [mail] = await eventually(async () => (sink.mailsTo(to).length ? sink.mailsTo(to) : null));
  return { raw: mail.raw.toString('utf8'), parsed: await simpleParser(mail.raw) };
}

describe('the text/plain part over SMTP', () => {
  it('generates the text part from the rendered HTML when /v1/send gives no text: multipart/alternative, links as text [url]', async () => {
    const to = uniqueEmail();
    const res = await h.http
      .post('/v1/send')
      .set(key())
      .send({
        to,
        from: `hello@${DOMAIN}`,
        subject: 'Order',
        body: '<h1>Hi {{name}}</h1><p>See <a href="https://shop.example/orders/1">your order</a>.</p><img src="https://shop.example/px.gif">',
        data: { name: 'Ada' },
      });
    expect(res.status).toBe(200);
    const { raw, parsed } = await received(to);
    expect(raw).toMatch(/Content-Type: multipart\/alternative/i);
    expect(parsed.html).toContain('<a href="https://shop.example/orders/1">your order</a>');
    expect(parsed.text).toContain('Hi Ada');
    expect(parsed.text).toContain('See your order [https://shop.example/orders/1].');
    // No markup, and the image without alt text leaves nothing behind.
    expect(parsed.text).not.toMatch(/<|px\.gif/);
  });

  it('sends the given text, rendered with the same variables and not HTML-escaped, beside the HTML', async () => {
    const to = uniqueEmail();
    const res = await h.http
      .post('/v1/send')
      .set(key())
      .send({
        to,
        from: `hello@${DOMAIN}`,
        subject: 'Order',
        body: '<p>Hi {{name}}</p>',
        text: 'Hello {{name}}, your code is {{code}}.',
        data: { name: 'Ada & Bob', code: '<42>' },
      });
    expect(res.status).toBe(200);
    const { raw, parsed } = await received(to);
    expect(raw).toMatch(/Content-Type: multipart\/alternative/i);
    expect(parsed.text?.trim()).toBe('Hello Ada & Bob, your code is <42>.');
    expect(parsed.html).toContain('Hi Ada &amp; Bob');
    // The row keeps the part as sent, beside the rendered body (what the log transport leaves to read).
    const row = await h.deps.knex('emails').where({ id: res.body.data.emails[0].email }).first();
    expect(row).toMatchObject({ text: 'Hello {{name}}, your code is {{code}}.', rendered_text: 'Hello Ada & Bob, your code is <42>.' });
  });

  it('refuses a text that is not a valid template with a 422', async () => {
    const res = await h.http
      .post('/v1/send')
      .set(key())
      .send({ to: uniqueEmail(), from: `hello@${DOMAIN}`, subject: 'S', body: '<p>b</p>', text: 'Hi {{ name' });
    expect(res.status).toBe(422);
    expect(JSON.stringify(res.body)).toMatch(/text/);
  });

  it('puts the unsubscribe link of a marketing template into the generated text part as in the HTML', async () => {
    const template = await h.http
      .post('/templates')
      .set(key())
      .send({
        name: 'News',
        subject: 'News',
        body: '<p>Hello</p><p><a href="{{unsubscribeUrl}}">Unsubscribe</a></p>',
        from: `news@${DOMAIN}`,
        type: 'MARKETING',
      });
    expect(template.status).toBe(201);
    const to = uniqueEmail();
    expect((await h.http.post('/v1/send').set(key()).send({ to, template: template.body.id, subscribed: true })).status).toBe(200);
    const { parsed } = await received(to);
    const href = /<a href="([^"]+)">Unsubscribe<\/a>/.exec(String(parsed.html))?.[1];
    expect(href).toMatch(/^https?:\/\//);
    // The link whole (a url longer than the wrap width goes on a line of its own, never split).
    const url = href!.replace(/&amp;/g, '&');
    expect(parsed.text).toContain(`[${url}]`);
    expect(parsed.text!.replace(/\s+/g, ' ')).toContain(`Unsubscribe [${url}]`);
  });

  it("uses a template's own text, with its unsubscribe link, for a send of that template", async () => {
    const template = await h.http
      .post('/templates')
      .set(key())
      .send({
        name: 'News text',
        subject: 'News',
        body: '<p>Hello</p>',
        text: 'Hello {{name}}\nUnsubscribe: {{unsubscribeUrl}}',
        from: `news@${DOMAIN}`,
        type: 'MARKETING',
      });
    expect(template.status).toBe(201);
    const to = uniqueEmail();
    expect(
      (
        await h.http
          .post('/v1/send')
          .set(key())
          .send({ to, template: template.body.id, subscribed: true, data: { name: 'Ada' } })
      ).status,
    ).toBe(200);
    const { parsed } = await received(to);
    expect(parsed.text).toMatch(/^Hello Ada\nUnsubscribe: https?:\/\/\S+unsubscribe\S*/);
  });
});

describe('`text` on templates and campaigns', () => {
  it('templates accept, store and return text; PATCH null clears it; without it the field is null', async () => {
    const created = await h.http
      .post('/templates')
      .set(key())
      .send({ name: 'T', subject: 'S', body: '<p>b</p>', text: 'Plain {{name}}', from: `hello@${DOMAIN}` });
    expect(created.status).toBe(201);
    expect(created.body.text).toBe('Plain {{name}}');
    expect((await h.http.get(`/templates/${created.body.id}`).set(key())).body.text).toBe('Plain {{name}}');
    const changed = await h.http.patch(`/templates/${created.body.id}`).set(key()).send({ text: 'Other' });
    expect(changed.status).toBe(200);
    expect(changed.body.text).toBe('Other');
    expect(changed.body.body).toBe('<p>b</p>');
    const cleared = await h.http.patch(`/templates/${created.body.id}`).set(key()).send({ text: null });
    expect(cleared.body.text).toBeNull();
    const without = await h.http
      .post('/templates')
      .set(key())
      .send({ name: 'U', subject: 'S', body: '<p>b</p>', from: `hello@${DOMAIN}` });
    expect(without.status).toBe(201);
    expect(without.body.text).toBeNull();
  });

  it('templates refuse a text that cannot parse with the flat 400 error', async () => {
    const res = await h.http
      .post('/templates')
      .set(key())
      .send({ name: 'T', subject: 'S', body: '<p>b</p>', text: '{% if %}', from: `hello@${DOMAIN}` });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatch(/Text/);
  });

  it('campaigns accept, store and return text; a full replace without it clears it', async () => {
    const fields = { name: 'C', subject: 'S', body: '<p>b</p>', from: `hello@${DOMAIN}`, audienceType: 'ALL' };
    const created = await h.http
      .post('/campaigns')
      .set(key())
      .send({ ...fields, text: 'Plain {{name}}' });
    expect(created.status).toBe(201);
    expect(created.body.data.text).toBe('Plain {{name}}');
    expect((await h.http.get(`/campaigns/${created.body.data.id}`).set(key())).body.text).toBe('Plain {{name}}');
    const replaced = await h.http
      .put(`/campaigns/${created.body.data.id}`)
      .set(key())
      .send({ ...fields, text: 'New' });
    expect(replaced.status).toBe(200);
    expect(replaced.body.text).toBe('New');
    const cleared = await h.http.put(`/campaigns/${created.body.data.id}`).set(key()).send(fields);
    expect(cleared.body.text).toBeNull();
    expect(
      (
        await h.http
          .post('/campaigns')
          .set(key())
          .send({ ...fields, text: '{{ oops' })
      ).status,
    ).toBe(422);
  });

  it("a campaign's test email carries the campaign's text", async () => {
    const created = await h.http
      .post('/campaigns')
      .set(key())
      .send({ name: 'C', subject: 'S', body: '<p>b</p>', text: 'Just text', from: `hello@${DOMAIN}`, audienceType: 'ALL' });
    const to = uniqueEmail();
    expect((await h.http.post(`/campaigns/${created.body.data.id}/test`).set(key()).send({ email: to })).status).toBe(200);
    const { parsed } = await received(to);
    expect(parsed.text?.trim()).toBe('Just text');
  });
});
