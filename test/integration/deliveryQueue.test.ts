import { startHarness, createProjectFixture, bearer, eventually, Harness, ProjectFixture } from '../helpers/harness';
import { startSendgridSink, SendgridSink } from '../helpers/sendgridSink';
import { verifiedDomain, uniqueEmail } from '../helpers/fixtures';
import { workflowApi } from '../helpers/workflows';
import type { CreatedWorker } from '../../worker/worker';
import { createHarnessWorker } from '../helpers/secondWorker';
import { deliverEmailWorkflowId, deliveriesTaskQueue } from '../../temporal/workflowIds';

let h: Harness;
let p: ProjectFixture;
let sink: SendgridSink;
let created: CreatedWorker;
let deliveriesDone: Promise<void>;

beforeAll(async () => {
  sink = await startSendgridSink();
  h = await startHarness({ env: { EMAIL_TRANSPORT: 'sendgrid', SENDGRID_API_KEY: 'SG.test-key', SENDGRID_API_URL: sink.url } });
  p = await createProjectFixture(h);
  await verifiedDomain(h, p.projectId, 'mail.example.com');
  created = await createHarnessWorker(h);
  // The main queue's worker stops before anything is sent: nothing on that queue is ever processed.
  const mainDone = created.workers.main.run();
  created.workers.main.shutdown();
  await mainDone;
  deliveriesDone = created.workers.deliveries.run();
});
afterAll(async () => {
  if (created) {
    created.workers.deliveries.shutdown();
    await deliveriesDone;
    await created.close();
  }
  await h?.stop();
  await sink?.stop();
});

describe('the deliveries task queue', () => {
  it('delivers a /v1/send email while nothing polls the main task queue', async () => {
    const to = uniqueEmail();
    const res = await h.http.post('/v1/send').set(bearer(p.secretKey)).send({ from: 'hello@mail.example.com', to, subject: 'Reset', body: '<p>Your code</p>' });
    expect(res.status).toBe(200);
    const id = res.body.data.emails[0].email;
    await eventually(async () => (await h.deps.knex('emails').where({ id }).first())?.status === 'SENT', 45_000);
    expect(sink.messages.filter((m) => m.body.personalizations[0].to[0].email === to)).toHaveLength(1);
    const described = await (await h.deps.temporal.client()).workflow.getHandle(deliverEmailWorkflowId(id)).describe();
    expect(described.taskQueue).toBe(deliveriesTaskQueue(h.taskQueue));
  });

  it("starts a SEND_EMAIL step's deliverEmail child on the deliveries queue", async () => {
    // Executions need the main queue's worker (the harness's own, polling both queues).
    await h.startWorker();
    const api = workflowApi(h, p);
    const event = `reset-${Date.now()}`;
    const wf = await api.build(
      event,
      { send: { type: 'SEND_EMAIL', config: { subject: 'Reset', body: '<p>code</p>', from: 'hello@mail.example.com', type: 'TRANSACTIONAL' } } },
      [['trigger', 'send']],
      { enabled: true },
    );
    const to = uniqueEmail('step');
    expect((await api.track(to, event, {})).status).toBe(200);
    const contact = (await h.deps.knex('contacts').where({ project_id: p.projectId, email: to }).first()).id;
    const exec = await api.executionOf(wf.id, contact);
    const done = await api.until(wf.id, exec.id, ['COMPLETED', 'EXITED', 'FAILED']);
    expect(done.status).toBe('COMPLETED');
    const emailId = done.steps.find((st: any) => st.type === 'SEND_EMAIL').output.emailId;
    const described = await (await h.deps.temporal.client()).workflow.getHandle(deliverEmailWorkflowId(emailId)).describe();
    expect(described.taskQueue).toBe(deliveriesTaskQueue(h.taskQueue));
  });
});
