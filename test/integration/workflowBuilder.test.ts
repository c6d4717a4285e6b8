import { startHarness, createProjectFixture, bearer, Harness, ProjectFixture } from '../helpers/harness';
import { workflowApi, equalsFilter } from '../helpers/workflows';
import { verifiedDomain } from '../helpers/fixtures';

/**
 * The workflow builder's server side (docs/workflows.md "Building"): steps inserted in place on a
 * branch, nodes' summaries with the names looked up, a branch left open ending the execution
 * (EXITED, the branch named in its history), and enabling that lists every problem at once.
 */

let h: Harness;
let p: ProjectFixture;
let api: ReturnType<typeof workflowApi>;

beforeAll(async () => {
  h = await startHarness({ worker: true });
  p = await createProjectFixture(h);
  await verifiedDomain(h, p.projectId, 'wf.example.com');
  api = workflowApi(h, p);
});
afterAll(() => h?.stop());

const contact = async (email: string, data: Record<string, unknown>) => {
  const res = await h.http.post('/contacts').set(bearer(p.secretKey)).send({ email, data });
  expect(res.status).toBeLessThan(300);
  return (res.body.id ?? res.body.data?.id) as string;
};

describe('building', () => {
  it('inserts a step in place on a branch and shows each node in words', async () => {
    const wf = await api.build('builder-signup', { wait: { type: 'DELAY', config: { amount: 2, unit: 'days' } } }, [['trigger', 'wait']]);
    const inserted = await h.http
      .post(`/workflows/${wf.id}/steps`)
      .set(bearer(p.secretKey))
      .send({ type: 'DELAY', config: { amount: 1, unit: 'hours' }, after: { stepId: wf.triggerStepId, branch: 'next' } });
    expect(inserted.status).toBe(201);
    expect(inserted.body).toMatchObject({ title: 'Wait', summary: 'Wait 1 hour' });
    const got = (await api.get(wf.id)).body;
    const edges = got.transitions.map((t: any) => [t.fromStepId, t.toStepId, t.branch]);
    expect(edges).toEqual(
      expect.arrayContaining([
        [wf.triggerStepId, inserted.body.id, 'next'],
        [inserted.body.id, wf.steps.wait, 'next'],
      ]),
    );
    expect(edges).toHaveLength(2);
    const byId = Object.fromEntries(got.steps.map((s: any) => [s.id, s]));
    expect(byId[wf.triggerStepId]).toMatchObject({ title: 'Trigger', summary: 'When “builder-signup” happens' });
    expect(byId[wf.steps.wait].summary).toBe('Wait 2 days');

    // A branch the step cannot take is refused, and nothing is inserted.
    const bad = await h.http
      .post(`/workflows/${wf.id}/steps`)
      .set(bearer(p.secretKey))
      .send({ type: 'EXIT', after: { stepId: wf.steps.wait, branch: 'yes' } });
    expect(bad.status).toBe(422);
    expect((await api.get(wf.id)).body.steps).toHaveLength(3);

    const tpl = await h.http.post('/templates').set(bearer(p.secretKey)).send({ name: 'Welcome', subject: 'Hi', body: '<p>Hi</p>', from: 'a@wf.example.com' });
    expect(tpl.status).toBe(201);
    const send = await api.addStep(wf.id, { type: 'SEND_EMAIL', config: { templateId: tpl.body.id } });
    expect(send.body.summary).toBe('Send “Welcome” (Welcome template)');
  });

  it('lets a side branch end open: a contact taking it ends EXITED, its history naming the branch', async () => {
    const cond = { type: 'CONDITION', config: { condition: equalsFilter('data.plan', 'pro') }, name: 'Is pro?' };
    const wf = await api.build('builder-open', { c: cond, mark: { type: 'UPDATE_CONTACT', config: { data: { pro: true } } } }, [
      ['trigger', 'c'],
      ['c', 'mark', 'yes'],
    ]);
    const enabled = await api.patch(wf.id, { enabled: true });
    expect(enabled.status).toBe(200);
    const cond2 = (await api.get(wf.id)).body.steps.find((s: any) => s.type === 'CONDITION');
    expect(cond2.summary).toBe('If plan is pro');

    const free = await api.start(wf.id, { contactId: await contact(`free-${Date.now()}@example.com`, { plan: 'free' }) });
    expect(free.status).toBe(201);
    const exited = await api.until(wf.id, free.body.id, ['COMPLETED', 'EXITED', 'FAILED']);
    expect(exited.status).toBe('EXITED');
    expect(exited.steps.map((s: any) => s.type)).toEqual(['TRIGGER', 'CONDITION']);
    expect(exited.steps[1].output).toEqual({ matched: false, ended: 'ended at the end of the ‘no’ branch of If / else' });

    // The end of the main path still completes.
    const pro = await api.start(wf.id, { contactId: await contact(`pro-${Date.now()}@example.com`, { plan: 'pro' }) });
    expect((await api.until(wf.id, pro.body.id, ['COMPLETED', 'EXITED', 'FAILED'])).status).toBe('COMPLETED');
  });

  it('refuses to enable with every problem at once, each in words with its node id', async () => {
    const wf = await api.build(
      'builder-broken',
      {
        a: { type: 'DELAY', config: { amount: 1, unit: 'days' } },
        b: { type: 'WAIT_FOR_EVENT', config: { eventName: 'paid' } },
        c: { type: 'UPDATE_CONTACT', config: { subscribed: true } },
      },
      [
        ['trigger', 'a'],
        ['a', 'b'],
        ['b', 'c'],
      ],
    );
    // Configs that no longer validate (written before a rule, or by an older version of a type).
    const send = await api.addStep(wf.id, { type: 'EXIT' });
    await h.deps
      .knex('workflow_steps')
      .where({ id: send.body.id })
      .update({ type: 'SEND_EMAIL', config: JSON.stringify({}) });
    await h.deps
      .knex('workflow_transitions')
      .insert({ id: crypto.randomUUID(), workflow_id: wf.id, from_step_id: wf.steps.c, to_step_id: send.body.id, branch: 'next' });
    await h.deps
      .knex('workflow_steps')
      .where({ id: wf.steps.a })
      .update({ config: JSON.stringify({ unit: 'days' }) });
    await h.deps
      .knex('workflow_steps')
      .where({ id: wf.steps.b })
      .update({ config: JSON.stringify({}) });

    const res = await api.patch(wf.id, { enabled: true });
    expect(res.status).toBe(422);
    expect(res.body.error.code).toBe('VALIDATION_ERROR');
    expect(res.body.error.errors).toEqual(
      expect.arrayContaining([
        { field: `steps.${send.body.id}.config.templateId`, code: 'custom', message: 'Send email: pick a template', stepId: send.body.id },
        { field: `steps.${wf.steps.a}.config.amount`, code: 'custom', message: 'Wait: fill in amount', stepId: wf.steps.a },
        { field: `steps.${wf.steps.b}.config.eventName`, code: 'custom', message: 'Wait for event: pick an event', stepId: wf.steps.b },
      ]),
    );
    expect(res.body.error.errors).toHaveLength(3);
    expect(res.body.error.details.stepIds.sort()).toEqual([send.body.id, wf.steps.a, wf.steps.b].sort());
    expect((await api.get(wf.id)).body.enabled).toBe(false);
  });
});
