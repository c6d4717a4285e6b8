import crypto from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import nodemailer from 'nodemailer';
import { temporal } from '@temporalio/proto';
import { startHarness, createProjectFixture, bearer, eventually, Harness, ProjectFixture } from '../helpers/harness';
import { verifiedDomain } from '../helpers/fixtures';
import { startDnsServer, TestDnsServer } from '../helpers/dnsServer';
import { workflowApi } from '../helpers/workflows';
import { dsn, reply } from '../helpers/inboundMail';
import { startInboundServer, InboundServer } from '../../inbound/server';
import { verpReturnPath } from '../../lib/verp';
import { eraseRows, lockContactForErasure } from '../../db/erasure';
import { resumeErasures } from '../../services/erasure';
import { executionWorkflowId } from '../../temporal/workflowIds';
import { createJob } from '../../db/jobs';

/**
 * Erasure end to end (docs/privacy.md "Erasure"): a person reaches the project through every path —
 * double opt-in, /v1/send (with an Idempotency-Key naming them), a CSV import, /v1/track starting a
 * workflow that sends, calls a webhook and updates the contact, a workflow left waiting, a campaign,
 * outbound webhooks, a reply and a bounce over inbound SMTP — and is erased; then every text, json,
 * array and bytea column of every table in the database, and every Temporal history of this file's
 * worker, is searched for the address: nothing.
 */

let h: Harness;
let p: ProjectFixture;
let dns: TestDnsServer;
let inbound: InboundServer;
let hook: http.Server;
let hookUrl: string;
const hookBodies: string[] = [];

const tag = crypto.randomBytes(4).toString('hex');
const DOMAIN = `erase-${tag}.example.com`;

beforeAll(async () => {
  // A webhook receiver that echoes what it is sent, as many do: its answer is the WEBHOOK step's output.
  hook = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      hookBodies.push(body);
      res.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify({ ok: true, echoed: body }));
    });
  });
  await new Promise<void>((r) => hook.listen(0, '127.0.0.1', r));
  hookUrl = `http://127.0.0.1:${(hook.address() as AddressInfo).port}/hook`;
  dns = await startDnsServer();
  h = await startHarness({ worker: true, env: { DNS_SERVERS: dns.address, WEBHOOK_ALLOW_PRIVATE: 'true' } });
  p = await createProjectFixture(h, 'Erasure');
  await verifiedDomain(h, p.projectId, DOMAIN);
  inbound = await startInboundServer(h.deps, { port: 0, host: '127.0.0.1' });
  // Outbound webhooks for every event: their messages name the person.
  const endpoint = await h.http
    .post('/webhook-endpoints')
    .set(bearer(p.secretKey))
    .send({ url: hookUrl, events: ['*'] });
  if (endpoint.status !== 201) throw new Error(`webhook endpoint: ${endpoint.status}`);
});

afterAll(async () => {
  await inbound?.close();
  await h?.stop();
  await dns?.stop();
  await new Promise((r) => hook?.close(r));
});

const auth = (fx = p) => bearer(fx.secretKey);
const knex = () => h.deps.knex;

async function smtpSend(envelope: { from: string; to: string[] }, raw: Buffer) {
  const t = nodemailer.createTransport({ host: '127.0.0.1', port: inbound.port, secure: false, ignoreTLS: true });
  try {
    return await t.sendMail({ envelope, raw });
  } finally {
    t.close();
  }
}

/** Every (table, column) of the database that can hold text: where an address could hide. */
async function textColumns(): Promise<Array<{ table: string; column: string; type: string }>> {
  const { rows } = await knex().raw(
    `SELECT c.table_name AS table, c.column_name AS column, c.data_type AS type
       FROM information_schema.columns c
       JOIN information_schema.tables t ON t.table_schema = c.table_schema AND t.table_name = c.table_name
      WHERE c.table_schema = current_schema() AND t.table_type = 'BASE TABLE'
        AND c.data_type IN ('text', 'character varying', 'character', 'json', 'jsonb', 'ARRAY', 'bytea', 'USER-DEFINED')
      ORDER BY 1, 2`,
  );
  return rows;
}

/** Rows, per "table.column", whose value contains `needle` in any case. */
async function rowsNaming(needle: string): Promise<Record<string, number>> {
  const found: Record<string, number> = {};
  for (const { table, column, type } of await textColumns()) {
    const value = type === 'bytea' ? `encode("${column}", 'escape')` : `"${column}"::text`;
    const { rows } = await knex().raw(`SELECT count(*)::int AS n FROM "${table}" WHERE position(? in lower(${value})) > 0`, [needle.toLowerCase()]);
    if (rows[0].n > 0) found[`${table}.${column}`] = rows[0].n;
  }
  return found;
}

/** Every history this file's worker ran, as the bytes the server stores. */
async function historiesNaming(needles: string[]): Promise<string[]> {
  const client = await h.deps.temporal.client();
  const leaks: string[] = [];
  for await (const wf of client.workflow.list({ query: `TaskQueue = "${h.taskQueue}"` })) {
    const history = await client.workflow.getHandle(wf.workflowId, wf.runId).fetchHistory();
    const bytes = Buffer.from(temporal.api.history.v1.History.encode(history).finish()).toString('latin1').toLowerCase();
    for (const n of needles) if (bytes.includes(n.toLowerCase())) leaks.push(`${wf.workflowId}: ${n}`);
  }
  return leaks;
}

const settled = async (what: string, read: () => Promise<any>, done: (x: any) => boolean, timeoutMs = 90_000) => {
  let last: any;
  await eventually(async () => done((last = await read())), timeoutMs).catch((err) => {
    throw new Error(`${what}: ${err.message}; last ${JSON.stringify(last)}`);
  });
};
const emailRow = (id: string) => knex()('emails').where({ id }).first();
const send = (to: string, extra: Record<string, unknown> = {}, headers: Record<string, string> = {}) =>
  h.http
    .post('/v1/send')
    .set(auth())
    .set(headers)
    .send({ from: `hello@${DOMAIN}`, to, subject: 'Hi {{ nick }}', body: '<p>Hi {{ nick }}, you are {{ email }}</p>', ...extra });

describe('DELETE /contacts/:id?erase=true', () => {
  it('leaves no row naming the person in any table, no address in any history, keeps the counters and the suppression, and cancels running executions', async () => {
    // Mixed case on purpose: stored lowercase in some places, as given in others; both must go.
    const ADDR = `Erase.Me-${tag}@Person.Example`;
    const addr = ADDR.toLowerCase();
    const nick = `Quillon${tag}`;
    const api = workflowApi(h, p);

    // 1. Double opt-in: the contact starts pending and is mailed a confirmation.
    expect(
      (
        await h.http
          .patch('/settings')
          .set(auth())
          .send({ doubleOptIn: { enabled: true, from: `hi@${DOMAIN}` } })
      ).status,
    ).toBe(200);
    const created = await h.http
      .post('/contacts')
      .set(auth())
      .send({ email: ADDR, data: { nick, referral: `friend of ${addr}` } });
    expect(created.status).toBe(201);
    const contactId = created.body.id as string;
    expect(await knex()('contact_confirmations').where({ contact_id: contactId }).first()).toBeTruthy();
    expect((await h.http.patch('/settings').set(auth()).send({ doubleOptIn: null })).status).toBe(200);

    // 2. /v1/send with an Idempotency-Key that names the person (clients do this).
    const sent = await send(ADDR, { data: { nick } }, { 'Idempotency-Key': `welcome-${addr}` });
    expect(sent.status).toBe(200);
    const sentEmailId = sent.body.data.emails[0].email as string;

    // 3. A CSV import subscribes them and sets a field.
    const imported = await h.http
      .post('/contacts/import')
      .set(auth())
      .attach('file', Buffer.from(`email,subscribed,city\n${ADDR},true,Ravenholm${tag}\n`), 'contacts.csv');
    expect(imported.status).toBe(202);
    await settled(
      'import',
      async () => (await h.http.get(`/contacts/import/${imported.body.jobId}`).set(auth())).body,
      (b) => b.status === 'COMPLETED',
    );

    // 4. /v1/track starts a workflow: SEND_EMAIL, WEBHOOK (its body and its answer name them), UPDATE_CONTACT.
    const event = `signup.${tag}`;
    const wf = await api.build(
      event,
      {
        send: { type: 'SEND_EMAIL', config: { subject: 'Welcome {{ nick }}', body: '<p>Hi {{ nick }} at {{ email }}</p>', from: `hello@${DOMAIN}` } },
        hook: { type: 'WEBHOOK', config: { url: hookUrl, method: 'POST', body: '{"email":"{{ email }}","nick":"{{ nick }}"}' } },
        mark: { type: 'UPDATE_CONTACT', config: { data: { welcomed: true, contactAddress: '{{ email }}' } } },
      },
      [
        ['trigger', 'send'],
        ['send', 'hook'],
        ['hook', 'mark'],
      ],
      { enabled: true },
    );
    // A second workflow leaves an execution waiting: the erasure must cancel it.
    const waitEvent = `asked.${tag}`;
    const waiting = await api.build(
      waitEvent,
      { wait: { type: 'WAIT_FOR_EVENT', config: { eventName: 'never.happens', timeout: { amount: 6, unit: 'days' } } }, exit: { type: 'EXIT' } },
      [
        ['trigger', 'wait'],
        ['wait', 'exit', 'next'],
        ['wait', 'exit', 'timeout'],
      ],
      { enabled: true },
    );
    expect((await api.track(ADDR, event, { house: `${addr} house` })).status).toBe(200);
    expect((await api.track(ADDR, waitEvent)).status).toBe(200);
    const done = await api.executionOf(wf.id, contactId);
    await api.until(wf.id, done.id, ['COMPLETED'], 60_000);
    const open = await api.executionOf(waiting.id, contactId);
    await api.until(waiting.id, open.id, ['WAITING'], 60_000);

    // 5. A campaign to every subscribed contact, with a link that carries the address.
    const campaign = await h.http
      .post('/campaigns')
      .set(auth())
      .send({
        name: 'News',
        subject: 'News for {{ nick }}',
        body: '<p>Hello {{ nick }} <a href="https://example.com/u?who={{ email }}">you</a></p>',
        from: `news@${DOMAIN}`,
        audienceType: 'ALL',
      });
    expect(campaign.status).toBe(201);
    const campaignId = campaign.body.data.id as string;
    expect((await h.http.post(`/campaigns/${campaignId}/send`).set(auth()).send({})).status).toBeLessThan(300);
    await settled(
      'campaign',
      async () => (await h.http.get(`/campaigns/${campaignId}`).set(auth())).body,
      (b) => b.status === 'SENT',
    );
    const campaignEmail = await eventually(() => knex()('emails').where({ campaign_id: campaignId, contact_id: contactId }).first());
    await settled(
      'sent',
      () => emailRow(sentEmailId),
      (r) => r?.status === 'SENT',
    );

    // 6. Inbound: a reply to the campaign email, then a hard bounce of the /v1/send one (which suppresses the address).
    const inboundTo = `support@inbound.${DOMAIN}`;
    const replied = await smtpSend(
      { from: ADDR, to: [inboundTo] },
      reply({ from: ADDR, to: inboundTo, inReplyTo: `${campaignEmail.id}@${DOMAIN}`, text: `It is me, ${ADDR}` }),
    );
    expect(replied.response).toMatch(/^250/);
    const returnPath = verpReturnPath(h.config.jwtSecret, sentEmailId, `bounces.${DOMAIN}`);
    const bounced = await smtpSend({ from: '', to: [returnPath] }, dsn({ to: returnPath, recipient: ADDR, status: '5.1.1' }));
    expect(bounced.response).toMatch(/^250/);
    expect(await knex()('suppressions').where({ project_id: p.projectId, email: addr }).first()).toMatchObject({ reason: 'HARD_BOUNCE' });

    // A CSV export of the project: its file has the person's line.
    const exported = await h.http.post('/contacts/export').set(auth()).send({});
    expect(exported.status).toBe(202);
    await settled(
      'export',
      async () => (await h.http.get(`/contacts/export/${exported.body.jobId}`).set(auth())).body,
      (b) => b.status === 'COMPLETED',
    );

    // An import staged but not run yet (its rows go once a job completes): its rows name the person.
    await createJob(knex(), { projectId: p.projectId, type: 'IMPORT', rows: [{ rowNumber: 2, payload: { email: ADDR, data: {} } }] });

    // Outbound webhooks went out naming the person; the seeding reached every table it should.
    await settled(
      'webhooks',
      async () => hookBodies.filter((b) => b.toLowerCase().includes(addr)).length,
      (n) => n >= 2,
    );
    await settled(
      'deliveries',
      async () => (await knex()('webhook_deliveries').where('status', 'DELIVERED')).length,
      (n) => n > 0,
    );
    const before = await rowsNaming(addr);
    for (const where of [
      'contacts.email',
      'emails.to_email',
      'emails.rendered_body',
      'events.data',
      'inbound_messages.raw',
      'webhook_deliveries.body',
      'idempotency_keys.key',
      'job_rows.payload',
      'contact_export_lines.line',
      'suppressions.email',
      'workflow_executions.context',
      'workflow_execution_steps.output',
    ]) {
      expect({ where, found: before[where] > 0 }).toEqual({ where, found: true });
    }
    const stats = (await h.http.get(`/campaigns/${campaignId}/stats`).set(auth())).body;
    const ourEmails = await knex()('emails').where({ contact_id: contactId }).select('id', 'status', 'sent_at');

    // Erase.
    const erased = await h.http.delete(`/contacts/${contactId}?erase=true`).set(auth());
    expect(erased.status).toBe(204);
    // The audit entry commits with the erasure and names the former contact id, never the address.
    expect(await knex()('audit_log').where({ project_id: p.projectId, action: 'contact.erase' })).toEqual([
      expect.objectContaining({ actor: 'secret key', target_type: 'contact', target_id: contactId }),
    ]);

    expect(await rowsNaming(addr)).toEqual({});
    expect(await rowsNaming(nick)).toEqual({});
    expect(await historiesNaming([addr, ADDR, nick])).toEqual([]);

    // The emails stay as anonymous counters: same rows, statuses and times; campaign stats unchanged.
    const after = await knex()('emails')
      .whereIn(
        'id',
        ourEmails.map((e) => e.id),
      )
      .select('id', 'status', 'sent_at', 'to_email', 'rendered_body', 'contact_id');
    expect(after.map((e) => [e.id, e.status, e.sent_at?.getTime()]).sort()).toEqual(ourEmails.map((e) => [e.id, e.status, e.sent_at?.getTime()]).sort());
    for (const e of after) expect(e).toMatchObject({ to_email: '', rendered_body: null, contact_id: null });
    expect((await h.http.get(`/campaigns/${campaignId}/stats`).set(auth())).body).toEqual(stats);
    expect((await h.http.get(`/emails/${sentEmailId}`).set(auth())).status).toBe(200);

    // The waiting execution's workflow was cancelled in Temporal, and the erasure says so.
    const client = await h.deps.temporal.client();
    await settled(
      'cancelled',
      async () => (await client.workflow.getHandle(executionWorkflowId(open.id)).describe()).status.name,
      (s) => s === 'CANCELLED',
      30_000,
    );
    expect(await knex()('contact_erasures').where({ project_id: p.projectId, contact_id: contactId }).first()).toMatchObject({
      executions: [open.id],
      cancelled_at: expect.any(Date),
    });

    // Still suppressed, by hash: a new send to the address (any case) is refused at hand-over.
    const again = await send(ADDR.toUpperCase());
    expect(again.status).toBe(200);
    await settled(
      'suppressed',
      () => emailRow(again.body.data.emails[0].email),
      (r) => r?.status === 'SUPPRESSED',
    );
    // …while an address that was never erased still goes.
    const control = await send(`control-${tag}@person.example`);
    await settled(
      'control',
      () => emailRow(control.body.data.emails[0].email),
      (r) => r?.status === 'SENT',
    );

    // Idempotent: the same erasure again is fine; an id never erased is not found.
    expect((await h.http.delete(`/contacts/${contactId}?erase=true`).set(auth())).status).toBe(204);
    const unknown = await h.http.delete('/contacts/cnt_doesnotexist?erase=true').set(auth());
    expect(unknown.status).toBe(404);
    expect(unknown.body).toMatchObject({ error: { code: 'NOT_FOUND' } });
  }, 300_000);
});

describe('POST /contacts/erase', () => {
  it('erases an address that is no longer a contact: its emails, its suppression (kept as a hash), its webhook messages', async () => {
    const ADDR = `Gone-${tag}@Former.Example`;
    const addr = ADDR.toLowerCase();
    const sent = await send(ADDR, { data: { nick: 'x' } });
    const emailId = sent.body.data.emails[0].email as string;
    await settled(
      'sent',
      () => emailRow(emailId),
      (r) => r?.status === 'SENT',
    );
    const contactId = sent.body.data.emails[0].contact.id as string;
    const inboundTo = `hello@inbound.${DOMAIN}`;
    expect((await smtpSend({ from: ADDR, to: [inboundTo] }, reply({ from: ADDR, to: inboundTo, subject: 'Question' }))).response).toMatch(/^250/);
    // A plain delete keeps the emails and the webhook messages (and their address): the case this route is for.
    expect((await h.http.delete(`/contacts/${contactId}`).set(auth())).status).toBe(204);
    expect(
      (
        await h.http
          .post('/suppressions')
          .set(auth())
          .send({ emails: [ADDR] })
      ).status,
    ).toBeLessThan(300);
    const seeded = ['emails.to_email', 'emails.rendered_body', 'suppressions.email', 'webhook_deliveries.body'];
    await settled(
      'seeded',
      async () => Object.keys(await rowsNaming(addr)),
      (found) => seeded.every((w) => found.includes(w)),
    );

    const res = await h.http
      .post('/contacts/erase')
      .set(auth())
      .send({ emails: [ADDR, addr] });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ addresses: 1, contacts: 0 });
    expect(await rowsNaming(addr)).toEqual({});
    expect(await knex()('emails').where({ id: emailId }).first()).toMatchObject({ status: 'SENT', to_email: '' });

    const again = await send(addr);
    await settled(
      'suppressed',
      () => emailRow(again.body.data.emails[0].email),
      (r) => r?.status === 'SUPPRESSED',
    );
    // DELETE /suppressions/:email lifts the hashed entry too, and only that one.
    const hashed = async () =>
      Number((await knex()('suppressions').where({ project_id: p.projectId }).where('email', 'like', 'erased:%').count('* as n').first())!.n);
    const hashedBefore = await hashed();
    expect((await h.http.delete(`/suppressions/${encodeURIComponent(ADDR)}`).set(auth())).status).toBe(204);
    expect(await hashed()).toBe(hashedBefore - 1);
    const lifted = await send(addr);
    await settled(
      'lifted',
      () => emailRow(lifted.body.data.emails[0].email),
      (r) => r?.status === 'SENT',
    );
  }, 120_000);

  it('answers 422 in the error envelope for a bad body', async () => {
    for (const body of [{}, { emails: [] }, { emails: ['not an address'] }, { emails: Array.from({ length: 101 }, (_, i) => `a${i}@x.example`) }]) {
      const res = await h.http.post('/contacts/erase').set(auth()).send(body);
      expect(res.status).toBe(422);
      expect(res.body.error).toMatchObject({ code: 'VALIDATION_ERROR' });
    }
  });

  it("never reaches another project's data", async () => {
    const other = await createProjectFixture(h, 'Other');
    const shared = `shared-${tag}@both.example`;
    const mine = await h.http
      .post('/contacts')
      .set(auth())
      .send({ email: shared, data: { nick: 'mine' } });
    const theirs = await h.http
      .post('/contacts')
      .set(auth(other))
      .send({ email: shared, data: { nick: 'theirs' } });
    expect([mine.status, theirs.status]).toEqual([201, 201]);
    // Their key cannot erase my contact by id…
    const byId = await h.http.delete(`/contacts/${mine.body.id}?erase=true`).set(auth(other));
    expect(byId.status).toBe(404);
    expect(byId.body.error).toMatchObject({ code: 'NOT_FOUND' });
    // …and erasing the address in their project leaves mine.
    expect(
      (
        await h.http
          .post('/contacts/erase')
          .set(auth(other))
          .send({ emails: [shared] })
      ).body,
    ).toEqual({ addresses: 1, contacts: 1 });
    expect((await h.http.get(`/contacts/${mine.body.id}`).set(auth())).body).toMatchObject({ email: shared, data: { nick: 'mine' } });
    expect((await h.http.get(`/contacts/${theirs.body.id}`).set(auth(other))).status).toBe(404);
  });
});

describe('crash safety', () => {
  it('the maintenance sweep cancels what an erasure committed but did not get to cancel', async () => {
    const api = workflowApi(h, p);
    const waitEvent = `crash.${tag}`;
    const wf = await api.build(
      waitEvent,
      { wait: { type: 'WAIT_FOR_EVENT', config: { eventName: 'never.happens', timeout: { amount: 6, unit: 'days' } } }, exit: { type: 'EXIT' } },
      [
        ['trigger', 'wait'],
        ['wait', 'exit', 'next'],
        ['wait', 'exit', 'timeout'],
      ],
      { enabled: true },
    );
    const email = `crash-${tag}@person.example`;
    expect((await api.track(email, waitEvent)).status).toBe(200);
    const contact = await eventually(() => knex()('contacts').where({ project_id: p.projectId, email }).first());
    const execution = await api.executionOf(wf.id, contact.id);
    await api.until(wf.id, execution.id, ['WAITING'], 60_000);

    // The erasing transaction commits; the process dies before the cancellations.
    await knex().transaction(async (trx) => {
      const locked = await lockContactForErasure(trx, p.projectId, { id: contact.id });
      await eraseRows(trx, { projectId: p.projectId, email, contactId: locked!.id });
    });
    const client = await h.deps.temporal.client();
    const handle = client.workflow.getHandle(executionWorkflowId(execution.id));
    expect((await handle.describe()).status.name).toBe('RUNNING');

    expect(await resumeErasures(h.deps, 0)).toBeGreaterThanOrEqual(1);
    await settled(
      'cancelled',
      async () => (await handle.describe()).status.name,
      (s) => s === 'CANCELLED',
      30_000,
    );
    expect(await knex()('contact_erasures').where({ contact_id: contact.id }).first()).toMatchObject({ cancelled_at: expect.any(Date) });
  }, 120_000);
});
