import fs from 'node:fs';
import path from 'node:path';
import { Worker } from '@temporalio/worker';
import { temporal } from '@temporalio/proto';
import { startHarness, createProjectFixture, bearer, eventually, Harness } from '../helpers/harness';
import { startSendgridSink, SendgridSink } from '../helpers/sendgridSink';
import { verifiedDomain, uniqueEmail } from '../helpers/fixtures';

/**
 * A campaign's sendRatePerMinute is an even pace, not a minute's worth in one burst: 120 recipients
 * at 600 a minute arrive over about 12 seconds, at most the rate (10) plus one group (2) in any
 * second. Measured on the sink's arrival timestamps. The pace is a rate, so this file runs at
 * WORKFLOW_TIME_SCALE 1 (the harness default): scaled, the seconds would shrink with it.
 */
const DOMAIN = 'pace.example.com';
const RATE = 600;
const RECIPIENTS = 120;

let h: Harness;
let sink: SendgridSink;

beforeAll(async () => {
  sink = await startSendgridSink();
  h = await startHarness({ worker: true, env: { EMAIL_TRANSPORT: 'sendgrid', SENDGRID_API_KEY: 'SG.test-key', SENDGRID_API_URL: sink.url } });
});
afterAll(async () => {
  await h?.stop();
  await sink?.stop();
});

/** Most arrivals within any one-second window (each window starting at an arrival). */
function mostInOneSecond(times: number[]): number {
  const sorted = [...times].sort((a, b) => a - b);
  let most = 0;
  for (let i = 0, j = 0; i < sorted.length; i++) {
    while (sorted[i] - sorted[j] >= 1000) j++;
    most = Math.max(most, i - j + 1);
  }
  return most;
}

it('spreads a campaign at 600/min evenly over the seconds instead of a burst per minute', async () => {
  const fx = await createProjectFixture(h);
  await verifiedDomain(h, fx.projectId, DOMAIN);
  const emails = Array.from({ length: RECIPIENTS }, () => uniqueEmail('pace'));
  for (const email of emails) expect((await h.http.post('/contacts').set(bearer(fx.secretKey)).send({ email, subscribed: true })).status).toBe(201);
  const created = await h.http
    .post('/campaigns')
    .set(bearer(fx.secretKey))
    .send({ name: 'Warm-up', subject: 'S', body: '<p>b</p>', from: `news@${DOMAIN}`, audienceType: 'ALL', sendRatePerMinute: RATE });
  expect(created.status).toBe(201);
  const id = created.body.data.id;
  expect((await h.http.post(`/campaigns/${id}/send`).set(bearer(fx.secretKey)).send({})).status).toBeLessThan(300);
  await eventually(async () => (await h.deps.knex('campaigns').where({ id: id }).first()).status === 'SENT', 90_000);

  // Each recipient's arrival: the time its provider call reached the sink.
  const ours = new Set(emails);
  const arrivals = sink.messages.flatMap((m) =>
    (m.body.personalizations ?? []).flatMap((p: any) => (p.to ?? []).filter((t: any) => ours.has(t.email)).map(() => m.receivedAt)),
  );
  expect(arrivals).toHaveLength(RECIPIENTS);
  // 10 a second plus one group of 2 (a fifth of a second's worth) of jitter.
  expect(mostInOneSecond(arrivals)).toBeLessThanOrEqual(RATE / 60 + 2);
}, 120_000);

// A paced campaign recorded by the workflow code before the even-pace marker: each batch at once,
// then a durable wait of (handed over / rate) minutes. Today's code must replay it alike (patched()).
it('replays a paced campaign run started before the even pace without nondeterminism', async () => {
  const history = temporal.api.history.v1.History.decode(fs.readFileSync(path.join(__dirname, '..', 'fixtures', 'campaignSend-v3-paced-finished.history.bin')));
  expect(history.events.filter((e) => e.timerStartedEventAttributes)).toHaveLength(3);
  await Worker.runReplayHistory({ workflowBundle: { codePath: process.env.TEST_WORKFLOW_BUNDLE! } }, history, 'campaign-paced-replay-fixture');
});
