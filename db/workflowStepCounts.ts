import type { Knex } from 'knex';

/**
 * A workflow's per-step numbers (GET /workflows/:id/stats, the canvas). The counters are kept by the
 * triggers of migration 055 as executions move, so this reads a few rows per step whatever the
 * number of executions; a SEND_EMAIL step's sent / opened / clicked are counted from its emails by
 * the (workflow_step_id, created_at) index.
 */

export interface StepCounts {
  stepId: string;
  entered: number;
  /** Executions waiting at the step now (not limited to the period). */
  waiting: number;
  /** Leavings by branch (`next`, `yes`, `no`, `timeout`, …). */
  left: Record<string, number>;
  /** Executions the step ended (an EXIT, or a step that ends), failed in, or was cancelled in. */
  ended: number;
  failed: number;
  cancelled: number;
  /** SEND_EMAIL steps only: emails the step wrote that were handed over, opened, clicked. */
  emails?: { sent: number; opened: number; clicked: number };
}

export interface StatsPeriod {
  /** Counted by the hour: `from` counts from the start of its hour. Absent: since the start. */
  from?: Date;
  /** Exclusive. Absent: until now. */
  to?: Date;
}

const zero = (stepId: string): StepCounts => ({ stepId, entered: 0, waiting: 0, left: {}, ended: 0, failed: 0, cancelled: 0 });

/** `emailStepIds`: the steps whose emails are counted (sent / opened / clicked), as the step registry says. */
export async function workflowStepCounts(
  db: Knex,
  workflowId: string,
  steps: Array<{ id: string }>,
  emailStepIds: string[],
  period: StatsPeriod,
): Promise<StepCounts[]> {
  const { rows } = await db.raw(
    `SELECT step_id, metric, sum(count)::bigint AS n FROM workflow_step_counts
      WHERE workflow_id = :workflowId
        AND (metric = 'waiting' OR ((:from::timestamptz IS NULL OR hour >= date_trunc('hour', :from::timestamptz))
                                AND (:to::timestamptz IS NULL OR hour < :to::timestamptz)))
      GROUP BY step_id, metric`,
    { workflowId, from: period.from ?? null, to: period.to ?? null },
  );
  const byStep = new Map(steps.map((s) => [s.id, zero(s.id)]));
  for (const r of rows as Array<{ step_id: string; metric: string; n: string }>) {
    const c = byStep.get(r.step_id);
    if (!c) continue;
    const n = Number(r.n);
    if (r.metric.startsWith('left:')) c.left[r.metric.slice(5)] = n;
    else if (r.metric === 'entered' || r.metric === 'waiting' || r.metric === 'ended' || r.metric === 'failed' || r.metric === 'cancelled') c[r.metric] = n;
  }
  const sendSteps = emailStepIds.filter((id) => byStep.has(id));
  if (sendSteps.length) {
    const { rows: emails } = await db.raw(
      `SELECT workflow_step_id, count(sent_at)::int AS sent, count(opened_at)::int AS opened, count(clicked_at)::int AS clicked
         FROM emails
        WHERE workflow_step_id = ANY(:steps::uuid[])
          AND (:from::timestamptz IS NULL OR created_at >= date_trunc('hour', :from::timestamptz))
          AND (:to::timestamptz IS NULL OR created_at < :to::timestamptz)
        GROUP BY workflow_step_id`,
      { steps: sendSteps, from: period.from ?? null, to: period.to ?? null },
    );
    for (const id of sendSteps) byStep.get(id)!.emails = { sent: 0, opened: 0, clicked: 0 };
    for (const e of emails as Array<{ workflow_step_id: string; sent: number; opened: number; clicked: number }>) {
      byStep.get(e.workflow_step_id)!.emails = { sent: e.sent, opened: e.opened, clicked: e.clicked };
    }
  }
  return [...byStep.values()];
}
