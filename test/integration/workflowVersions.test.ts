import { Worker } from '@temporalio/worker';
import { startHarness, createProjectFixture, bearer, Harness, ProjectFixture } from '../helpers/harness';
import { uniqueEmail } from '../helpers/fixtures';
import { workflowApi } from '../helpers/workflows';

/** Workflow versions (docs/workflows.md "Versions"): what an enabled workflow ran, who changed it, Restore. */

let h: Harness;
let p: ProjectFixture;

beforeAll(async () => {
  h = await startHarness({ worker: true });
  p = await createProjectFixture(h, 'versions');
});
afterAll(() => h?.stop());

const versions = (id: string, fx = p) => h.http.get(`/workflows/${id}/versions`).set(bearer(fx.secretKey));
const contactData = async (id: string) => (await h.deps.knex('contacts').where({ id }).first()).data;

describe('workflow versions', () => {
  it('numbers what an enabled workflow runs; an execution finishes on the version it started on', async () => {
    const flows = workflowApi(h, p);
    const wf = await flows.build(
      'joined',
      { wait: { type: 'WAIT_FOR_EVENT', config: { eventName: 'go' } }, mark: { type: 'UPDATE_CONTACT', name: 'Mark', config: { data: { ran: 'v1' } } } },
      [
        ['trigger', 'wait'],
        ['wait', 'mark', 'next'],
      ],
      { enabled: true },
    );
    let list = await versions(wf.id);
    expect(list.status).toBe(200);
    expect(list.body.data).toEqual([expect.objectContaining({ number: 1, note: 'First version', createdBy: 'secret key', current: true })]);

    const first = uniqueEmail('v1');
    const x1 = await flows.waitingExecution(wf.id, first, 'joined');

    // A change made in the dashboard: version 2, by the signed-in person, saying what changed.
    const edit = await h.http
      .patch(`/workflows/${wf.id}/steps/${wf.steps.mark}`)
      .set({ Cookie: p.cookie, 'X-Project-Id': p.projectId, Origin: h.config.appUrl.replace(/\/$/, '') })
      .send({ config: { data: { ran: 'v2' } } });
    expect(edit.status).toBe(200);
    // Moving a node is layout: no version.
    expect((await flows.patchStep(wf.id, wf.steps.mark, { position: { x: 40, y: 300 } })).status).toBe(200);
    list = await versions(wf.id);
    expect(list.body.data.map((v: any) => [v.number, v.note, v.createdBy, v.current])).toEqual([
      [2, 'Changed “Mark”', p.email, true],
      [1, 'First version', 'secret key', false],
    ]);

    const second = uniqueEmail('v2');
    const x2 = await flows.waitingExecution(wf.id, second, 'joined');
    expect((await flows.execution(wf.id, x1.id)).body.workflowVersion).toBe(1);
    expect((await flows.execution(wf.id, x2.id)).body.workflowVersion).toBe(2);

    await flows.track(first, 'go');
    await flows.track(second, 'go');
    expect((await flows.until(wf.id, x1.id, ['COMPLETED', 'FAILED'])).status).toBe('COMPLETED');
    expect((await flows.until(wf.id, x2.id, ['COMPLETED', 'FAILED'])).status).toBe('COMPLETED');
    expect((await contactData(x1.contactId)).ran).toBe('v1');
    expect((await contactData(x2.contactId)).ran).toBe('v2');
    // Version 1's execution, finished after version 2 was saved, replays as it ran.
    const history = await (await h.deps.temporal.client()).workflow.getHandle(`exec-${x1.id}`).fetchHistory();
    for await (const result of Worker.runReplayHistories({ workflowBundle: { codePath: process.env.TEST_WORKFLOW_BUNDLE! } }, [
      { workflowId: `exec-${x1.id}`, history },
    ])) {
      expect(result.error).toBeUndefined();
    }

    // One version with its graph.
    const one = await h.http.get(`/workflows/${wf.id}/versions/1`).set(bearer(p.secretKey));
    expect(one.status).toBe(200);
    expect(one.body.graph.eventName).toBe('joined');
    expect(one.body.graph.steps.find((s: any) => s.id === wf.steps.mark).config).toEqual({ data: { ran: 'v1' } });

    // Restore: version 1's graph becomes the workflow's, as version 3; new executions run it.
    const restored = await h.http.post(`/workflows/${wf.id}/versions/1/restore`).set(bearer(p.secretKey)).send({});
    expect(restored.status).toBe(200);
    expect(restored.body.steps.find((s: any) => s.id === wf.steps.mark).config).toEqual({ data: { ran: 'v1' } });
    // The node is back where it stood in version 1 (not placed), its id kept.
    expect(restored.body.steps.find((s: any) => s.id === wf.steps.mark).position ?? null).toBeNull();
    list = await versions(wf.id);
    expect(list.body.data[0]).toEqual(expect.objectContaining({ number: 3, note: 'Restored version 1', current: true }));
    const third = await flows.waitingExecution(wf.id, uniqueEmail('v3'), 'joined');
    expect((await flows.execution(wf.id, third.id)).body.workflowVersion).toBe(3);
    const audit = await h.deps.knex('audit_log').where({ project_id: p.projectId, action: 'workflow.update' }).orderBy('at', 'desc').first();
    expect(audit.details).toEqual(expect.objectContaining({ restoredVersion: 1 }));
  });

  it('keeps no versions while disabled: a manual start runs the draft', async () => {
    const flows = workflowApi(h, p);
    const wf = await flows.build('drafted', { mark: { type: 'UPDATE_CONTACT', config: { data: { drafted: true } } } }, [['trigger', 'mark']]);
    await flows.patchStep(wf.id, wf.steps.mark, { config: { data: { drafted: 'again' } } });
    expect((await versions(wf.id)).body.data).toEqual([]);
    const contact = await h.http
      .post('/contacts')
      .set(bearer(p.secretKey))
      .send({ email: uniqueEmail('draft') });
    const started = await flows.start(wf.id, { contactId: contact.body.id });
    expect(started.status).toBe(201);
    expect(started.body.workflowVersion).toBeNull();
    // Enabling publishes it.
    expect((await flows.patch(wf.id, { enabled: true })).status).toBe(200);
    expect((await versions(wf.id)).body.data.map((v: any) => v.number)).toEqual([1]);
  });

  it('answers 404 for a version that does not exist or a workflow of another project', async () => {
    const flows = workflowApi(h, p);
    const wf = await flows.build('lonely', { mark: { type: 'UPDATE_CONTACT', config: { data: { a: 1 } } } }, [['trigger', 'mark']], { enabled: true });
    expect((await h.http.get(`/workflows/${wf.id}/versions/99`).set(bearer(p.secretKey))).status).toBe(404);
    expect((await h.http.post(`/workflows/${wf.id}/versions/99/restore`).set(bearer(p.secretKey)).send({})).status).toBe(404);
    // A malformed number names nothing, as a malformed id does.
    expect((await h.http.get(`/workflows/${wf.id}/versions/0`).set(bearer(p.secretKey))).status).toBe(404);
    const other = await createProjectFixture(h, 'other');
    expect((await versions(wf.id, other)).status).toBe(404);
    expect((await h.http.post(`/workflows/${wf.id}/versions/1/restore`).set(bearer(other.secretKey)).send({})).status).toBe(404);
    expect((await versions(wf.id)).body.data).toHaveLength(1);
  });
});
