import crypto from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { temporal } from '@temporalio/proto';
import { startHarness, createProjectFixture, bearer, eventually, Harness, ProjectFixture } from '../helpers/harness';
import { startSendgridSink, SendgridSink } from '../helpers/sendgridSink';
import { verifiedDomain } from '../helpers/fixtures';
import { workflowApi } from '../helpers/workflows';

/**
 * Temporal histories are not where personal data lives (the rule in temporal/summaries.ts):
 * erasure deletes Postgres rows, and nothing reaches into a history the server keeps for its retention.
 * This runs the main paths — /v1/send, a tracked event starting a workflow that sends, calls a webhook
 * and updates the contact, a campaign, a CSV import — with distinctive addresses, names and data
 * values, then reads every history of this file's task queue, byte for byte, for any of them.
 */

let h: Harness;
let p: ProjectFixture;
let sink: SendgridSink;
let hook: http.Server;
let hookUrl: string;

const DOMAIN = 'mail.privacy.test';
const tag = crypto.randomBytes(4).toString('hex');
const secret = (what: string) => `${what}${tag}`;
/** Every value below must stay out of Temporal. */
const addresses = {
  send: `qx-send-${tag}@privacy.test`,
  sendNamed: `qx-named-${tag}@privacy.test`,
  tracked: `qx-tracked-${tag}@privacy.test`,
  campaign: `qx-campaign-${tag}@privacy.test`,
  imported: `qx-imported-${tag}@privacy.test`,
};
const values = {
  recipientName: secret('Quillfeather'),
  sendData: secret('Marzipanstreet'),
  contactName: secret('Zebulonia'),
  eventData: secret('Vermilionhouse'),
  campaignName: secret('Ottoline'),
  importedName: secret('Brackenbury'),
};

beforeAll(async () => {
  sink = await startSendgridSink();
  // A webhook endpoint that echoes what it is sent, as many do: its answer is the step's output.
  hook = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => res.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify({ ok: true, echoed: body })));
  });
  await new Promise<void>((r) => hook.listen(0, '127.0.0.1', r));
  hookUrl = `http://127.0.0.1:${(hook.address() as AddressInfo).port}/hook`;
  h = await startHarness({
    worker: true,
    env: { EMAIL_TRANSPORT: 'sendgrid', SENDGRID_API_KEY: 'SG.test-key', SENDGRID_API_URL: sink.url, WEBHOOK_ALLOW_PRIVATE: 'true' },
  });
  p = await createProjectFixture(h, 'privacy');
  await verifiedDomain(h, p.projectId, DOMAIN);
});
afterAll(async () => {
  await h?.stop();
  await sink?.stop();
  await new Promise((r) => hook?.close(r));
});

const auth = () => bearer(p.secretKey);
const emailStatus = (id: string) => h.deps.knex('emails').where({ id }).first('status');

/** Every history this file's worker ran, as the bytes the server stores (payloads are JSON inside). */
async function histories(): Promise<Array<{ workflowId: string; bytes: string }>> {
  const client = await h.deps.temporal.client();
  const out: Array<{ workflowId: string; bytes: string }> = [];
  for await (const wf of client.workflow.list({ query: `TaskQueue = "${h.taskQueue}"` })) {
    const history = await client.workflow.getHandle(wf.workflowId, wf.runId).fetchHistory();
    out.push({ workflowId: wf.workflowId, bytes: Buffer.from(temporal.api.history.v1.History.encode(history).finish()).toString('latin1') });
  }
  return out;
}

describe('Temporal histories', () => {
  it('carry no address, name or contact data value of the main paths', async () => {
    // 1. /v1/send, to a bare address and a named one, with template data.
    const sent = await h.http
      .post('/v1/send')
      .set(auth())
      .send({
        from: `hello@${DOMAIN}`,
        to: [addresses.send, { name: values.recipientName, email: addresses.sendNamed }],
        subject: 'Hi {{ street }}',
        body: '<p>Your street: {{ street }}</p>',
        data: { street: values.sendData },
      });
    expect(sent.status).toBe(200);
    const sentIds: string[] = sent.body.data.emails.map((e: any) => e.email);

    // 2. A tracked event starts a workflow: SEND_EMAIL, WEBHOOK (its body names the contact), UPDATE_CONTACT.
    const api = workflowApi(h, p);
    const event = `privacy.signup.${tag}`;
    const wf = await api.build(
      event,
      {
        send: { type: 'SEND_EMAIL', config: { subject: 'Welcome {{ firstName }}', body: '<p>Hi {{ firstName }} at {{ email }}</p>', from: `hello@${DOMAIN}` } },
        hook: {
          type: 'WEBHOOK',
          config: { url: hookUrl, method: 'POST', body: '{"email":"{{ email }}","name":"{{ firstName }}","house":"{{ event.data.house }}"}' },
        },
        mark: { type: 'UPDATE_CONTACT', config: { data: { welcomed: true } } },
      },
      [
        ['trigger', 'send'],
        ['send', 'hook'],
        ['hook', 'mark'],
      ],
      { enabled: true },
    );
    const contact = await h.http
      .post('/contacts')
      .set(auth())
      .send({ email: addresses.tracked, subscribed: true, data: { firstName: values.contactName } });
    expect(contact.status).toBe(201);
    const tracked = await api.track(addresses.tracked, event, { house: values.eventData });
    expect(tracked.status).toBe(200);
    const execution = await eventually(async () => {
      const list = await api.executions(wf.id);
      const done = list.body.data?.find((e: any) => e.contactId === contact.body.id && ['COMPLETED', 'FAILED'].includes(e.status));
      return done;
    }, 60_000);
    expect(execution.status).toBe('COMPLETED');

    // 3. A campaign to every subscribed contact, personalised.
    const member = await h.http
      .post('/contacts')
      .set(auth())
      .send({ email: addresses.campaign, subscribed: true, data: { firstName: values.campaignName } });
    expect(member.status).toBe(201);
    const campaign = await h.http
      .post('/campaigns')
      .set(auth())
      .send({
        name: 'Privacy news',
        subject: 'Hi {{ firstName ?? "there" }}',
        body: '<p>Hello {{ firstName ?? "friend" }}</p>',
        from: `news@${DOMAIN}`,
        audienceType: 'ALL',
      });
    expect(campaign.status).toBe(201);
    const campaignId = campaign.body.data.id;
    expect((await h.http.post(`/campaigns/${campaignId}/send`).set(auth()).send({})).status).toBeLessThan(300);

    // 4. A CSV import.
    const imported = await h.http
      .post('/contacts/import')
      .set(auth())
      .attach('file', Buffer.from(`email,firstName\n${addresses.imported},${values.importedName}\n`), 'contacts.csv');
    expect(imported.status).toBe(202);

    const settled = async (what: string, read: () => Promise<any>, done: (x: any) => boolean) => {
      let last: any;
      await eventually(async () => done((last = await read())), 90_000).catch((err) => {
        throw new Error(`${what}: ${err.message}; last ${JSON.stringify(last)}`);
      });
    };
    for (const id of sentIds)
      await settled(
        `email ${id}`,
        () => emailStatus(id),
        (r) => r?.status === 'SENT',
      );
    await settled(
      'campaign',
      async () => (await h.http.get(`/campaigns/${campaignId}`).set(auth())).body,
      (b) => b.status === 'SENT',
    );
    await settled(
      'import',
      async () => (await h.http.get(`/contacts/import/${imported.body.jobId}`).set(auth())).body,
      (b) => b.status === 'COMPLETED',
    );
    // The mail really went: the scenario exercised the paths it names.
    for (const a of [addresses.send, addresses.sendNamed, addresses.tracked, addresses.campaign]) {
      await settled(
        `mail to ${a}`,
        async () => sink.recipients().map((r) => r.email),
        (got) => got.includes(a),
      );
    }

    const all = await histories();
    // Each path left its workflows behind on this task queue.
    for (const prefix of ['exec-', 'campaign-', 'job-']) expect(all.some((x) => x.workflowId.startsWith(prefix))).toBe(true);
    const leaks = all.flatMap(({ workflowId, bytes }) =>
      [...Object.values(addresses), ...Object.values(values)].filter((v) => bytes.includes(v)).map((v) => `${workflowId}: ${v}`),
    );
    expect(leaks).toEqual([]);
  }, 300_000);
});
