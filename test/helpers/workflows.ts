import { bearer, eventually, Harness, ProjectFixture } from './harness';
import { executionWorkflowId } from '../../temporal/workflowIds';

/** Builds workflow graphs through the real API, for the workflows-*.test.ts files. */

export interface StepSpec {
  type: string;
  config?: Record<string, unknown>;
  name?: string;
}

export interface Built {
  id: string;
  triggerStepId: string;
  /** Step ids by the keys given to `build`. */
  steps: Record<string, string>;
}

export function workflowApi(h: Harness, p: ProjectFixture) {
  const auth = () => bearer(p.secretKey);
  const api = {
    create: (body: Record<string, unknown>) => h.http.post('/workflows').set(auth()).send(body),
    get: (id: string) => h.http.get(`/workflows/${id}`).set(auth()),
    patch: (id: string, body: Record<string, unknown>) => h.http.patch(`/workflows/${id}`).set(auth()).send(body),
    del: (id: string) => h.http.delete(`/workflows/${id}`).set(auth()),
    addStep: (id: string, body: StepSpec) => h.http.post(`/workflows/${id}/steps`).set(auth()).send(body),
    patchStep: (id: string, stepId: string, body: Record<string, unknown>) => h.http.patch(`/workflows/${id}/steps/${stepId}`).set(auth()).send(body),
    delStep: (id: string, stepId: string, splice = false) => h.http.delete(`/workflows/${id}/steps/${stepId}${splice ? '?splice=true' : ''}`).set(auth()),
    connect: (id: string, fromStepId: string, toStepId: string, branch?: string) =>
      h.http
        .post(`/workflows/${id}/transitions`)
        .set(auth())
        .send({ fromStepId, toStepId, ...(branch ? { branch } : {}) }),
    start: (id: string, body: Record<string, unknown>) => h.http.post(`/workflows/${id}/executions`).set(auth()).send(body),
    executions: (id: string, query = '') => h.http.get(`/workflows/${id}/executions${query}`).set(auth()),
    execution: (id: string, executionId: string) => h.http.get(`/workflows/${id}/executions/${executionId}`).set(auth()),
    cancel: (id: string, executionId: string) => h.http.delete(`/workflows/${id}/executions/${executionId}`).set(auth()),
    cancelAll: (id: string) => h.http.post(`/workflows/${id}/executions/cancel-all`).set(auth()),
    track: (email: string, event: string, data?: Record<string, unknown>) =>
      h.http
        .post('/v1/track')
        .set(bearer(p.publicKey))
        .send({ email, event, ...(data ? { data } : {}) }),

    /**
     * Creates a workflow on `eventName` with the given steps and edges (`[from, to, branch?]`, where
     * "trigger" names the TRIGGER step), optionally enabled.
     */
    async build(
      eventName: string,
      steps: Record<string, StepSpec>,
      edges: [string, string, string?][],
      opts: { enabled?: boolean; allowReentry?: boolean; name?: string } = {},
    ): Promise<Built> {
      const created = await api.create({ name: opts.name ?? `wf ${eventName}`, eventName, allowReentry: opts.allowReentry ?? false });
      if (created.status !== 201) throw new Error(`create: ${created.status} ${JSON.stringify(created.body)}`);
      const id = created.body.id as string;
      const triggerStepId = created.body.steps[0].id as string;
      const ids: Record<string, string> = { trigger: triggerStepId };
      for (const [key, spec] of Object.entries(steps)) {
        const res = await api.addStep(id, spec);
        if (res.status !== 201) throw new Error(`step ${key}: ${res.status} ${JSON.stringify(res.body)}`);
        ids[key] = res.body.id;
      }
      for (const [from, to, branch] of edges) {
        const res = await api.connect(id, ids[from], ids[to], branch);
        if (res.status !== 201) throw new Error(`edge ${from}→${to}: ${res.status} ${JSON.stringify(res.body)}`);
      }
      if (opts.enabled) {
        const res = await api.patch(id, { enabled: true });
        if (res.status !== 200) throw new Error(`enable: ${res.status} ${JSON.stringify(res.body)}`);
      }
      return { id, triggerStepId, steps: ids };
    },

    /** An enabled workflow on `trigger` whose executions wait for `awaited`, then set `data` on their contact. */
    waitThenMark(trigger: string, awaited: string, data: Record<string, unknown>): Promise<Built> {
      return api.build(
        trigger,
        { wait: { type: 'WAIT_FOR_EVENT', config: { eventName: awaited } }, mark: { type: 'UPDATE_CONTACT', config: { data } } },
        [
          ['trigger', 'wait'],
          ['wait', 'mark', 'next'],
        ],
        { enabled: true },
      );
    },

    /** Tracks `trigger` for `email`, then returns the contact and its execution of the workflow once that waits. */
    async waitingExecution(workflowId: string, email: string, trigger: string): Promise<{ contactId: string; id: string }> {
      const res = await api.track(email, trigger);
      if (res.status !== 200) throw new Error(`track: ${res.status} ${JSON.stringify(res.body)}`);
      const contactId: string = res.body.data.contact;
      const x = await api.executionOf(workflowId, contactId);
      await eventually(async () => (await h.deps.knex('workflow_executions').where({ id: x.id }).first()).status === 'WAITING');
      return { contactId, id: x.id as string };
    },

    /** Executions of the workflow in Postgres (the API's listing), oldest first. */
    async rows(workflowId: string) {
      return h.deps.knex('workflow_executions').where({ workflow_id: workflowId }).orderBy('started_at');
    },

    /** Waits until the execution reaches one of `statuses`, then returns it with its steps. */
    async until(workflowId: string, executionId: string, statuses: string[], timeoutMs = 30_000) {
      return eventually(async () => {
        const res = await api.execution(workflowId, executionId);
        return statuses.includes(res.body.status) ? res.body : null;
      }, timeoutMs);
    },

    /** The contact's one execution of the workflow, once it exists. */
    async executionOf(workflowId: string, contactId: string) {
      return eventually(async () => h.deps.knex('workflow_executions').where({ workflow_id: workflowId, contact_id: contactId }).first());
    },
  };
  return api;
}

/** Liquid and filter shorthands. */
export const equalsFilter = (field: string, value: unknown) => ({ logic: 'AND', groups: [{ filters: [{ field, operator: 'equals', value }] }] });

/**
 * The local activities an execution's Temporal history has recorded, in order. Postgres shows what a
 * local activity wrote at once; its marker reaches the history when the workflow task completes.
 */
export async function localActivitiesOf(h: Harness, executionId: string): Promise<string[]> {
  const history = await (await h.deps.temporal.client()).workflow.getHandle(executionWorkflowId(executionId)).fetchHistory();
  return history.events!.flatMap((e) => {
    const details = e.markerRecordedEventAttributes?.details?.data?.payloads?.[0]?.data;
    return e.markerRecordedEventAttributes?.markerName === 'core_local_activity' && details
      ? [JSON.parse(Buffer.from(details).toString()).activity_type as string]
      : [];
  });
}
