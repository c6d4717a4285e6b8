/**
 * What each workflow says about itself in the Temporal Web UI (docs/operators.md): a one-line static
 * summary and Markdown static details, built here for every start site, the API's (services/) and
 * the workflows' own child starts alike. Pure functions, safe inside the workflow sandbox.
 *
 * Ids and names only: no email address or other contact data goes into Temporal, whose history is
 * not where personal data lives. The same holds for inputs, signals, results and failures (execution
 * contexts stay in Postgres); test/integration/temporalPrivacy.test.ts reads every history of a
 * scenario over the main paths for the addresses and values it seeded.
 */

export interface StartText {
  summary: string;
  details: string;
}

/** Markdown lines `**Label** value`, skipping labels without a value. */
export function detailLines(lines: Array<[label: string, value: string | null | undefined]>): string {
  return lines
    .filter((l): l is [string, string] => !!l[1])
    .map(([label, value]) => `**${label}** ${value}  `)
    .join('\n');
}

const count = (n: number) => n.toLocaleString('en-US');

export function executionStart(e: {
  executionId: string;
  projectId: string;
  contactId: string;
  workflow: { id: string; name: string };
  triggerEvent?: { id: string; name: string };
  test?: boolean;
}): StartText {
  return {
    summary: `${e.test ? 'Test run of automation' : 'Automation'} '${e.workflow.name}' for contact ${e.contactId}`,
    details: detailLines([
      ['Project', e.projectId],
      ['Workflow', `GET /workflows/${e.workflow.id}`],
      ['Execution', `GET /workflows/${e.workflow.id}/executions/${e.executionId}`],
      ['Contact', `GET /contacts/${e.contactId}`],
      [
        'Trigger',
        e.triggerEvent
          ? `event ${e.triggerEvent.id} ('${e.triggerEvent.name}')`
          : e.test
            ? 'a test run, started through POST /workflows/:id/test (emails go to the tester, waits last seconds)'
            : 'started through POST /workflows/:id/executions',
      ],
    ]),
  };
}

/** `source` says who asked: /v1/send, a workflow step, a campaign test, a system email, the sweep. */
export function deliveryStart(d: {
  emailId: string;
  projectId: string;
  contactId: string | null;
  label?: string | null;
  source: string;
  executionId?: string;
}): StartText {
  const what = d.label ? ` ('${d.label}')` : '';
  return {
    summary: `Delivery of email ${d.emailId}${what}${d.contactId ? ` to contact ${d.contactId}` : ''}`,
    details: detailLines([
      ['Project', d.projectId],
      ['Email', d.emailId],
      ['Contact', d.contactId ? `GET /contacts/${d.contactId}` : null],
      ['Source', d.source],
      ['Execution', d.executionId],
    ]),
  };
}

/** A /v1/send batch (temporal/workflows/deliverEmailBatch/): every email id, and where each row names the batch. */
export function deliveryBatchStart(b: { projectId: string; emailIds: string[]; source: string }): StartText {
  return {
    summary: `Delivery of ${count(b.emailIds.length)} email${b.emailIds.length === 1 ? '' : 's'} from ${b.source} (first ${b.emailIds[0]})`,
    details: detailLines([
      ['Project', b.projectId],
      ['Emails', b.emailIds.join(', ')],
      ['Rows', 'each email row names this workflow in `delivery_workflow`'],
      ['Source', b.source],
    ]),
  };
}

export function campaignStart(c: { id: string; projectId: string; name: string; scheduledFor: string | null }): StartText {
  return {
    summary: `Campaign '${c.name}'${c.scheduledFor ? ` · scheduled for ${c.scheduledFor}` : ''}`,
    details: detailLines([
      ['Project', c.projectId],
      ['Campaign', `GET /campaigns/${c.id}`],
      ['Stats', `GET /campaigns/${c.id}/stats`],
      ['Pause / resume / cancel', `POST /campaigns/${c.id}/pause · /resume · /cancel`],
      ['Progress', 'current details, and the `state` query'],
    ]),
  };
}

const JOB_KINDS: Record<string, string> = {
  IMPORT: 'CSV import',
  BULK_SUBSCRIBE: 'Bulk subscribe',
  BULK_UNSUBSCRIBE: 'Bulk unsubscribe',
  BULK_DELETE: 'Bulk delete',
  EXPORT: 'CSV export',
};

const JOB_ROUTES: Record<string, string> = { IMPORT: 'import', EXPORT: 'export' };

export function bulkJobStart(j: { id: string; projectId: string; type: string; total: number }): StartText {
  const kind = JOB_KINDS[j.type] ?? j.type;
  return {
    summary: `${kind} of ${count(j.total)} rows · job ${j.id}`,
    details: detailLines([
      ['Project', j.projectId],
      ['Job', `GET /contacts/${JOB_ROUTES[j.type] ?? 'bulk'}/${j.id}`],
      ['Type', j.type],
      ['Progress', 'current details, and the `state` query'],
    ]),
  };
}

export function segmentComputeStart(s: { id: string; projectId: string; name: string }, source: string): StartText {
  return {
    summary: `Compute of segment '${s.name}' (${s.id})`,
    details: detailLines([
      ['Project', s.projectId],
      ['Segment', `GET /segments/${s.id}`],
      ['Members', `GET /segments/${s.id}/members`],
      ['Source', source],
    ]),
  };
}

export function routeEventStart(e: { id: string; projectId: string; contactId: string | null; name: string }): StartText {
  return {
    summary: `Routing of event '${e.name}' (${e.id})${e.contactId ? ` for contact ${e.contactId}` : ''}`,
    details: detailLines([
      ['Project', e.projectId],
      ['Event', `${e.id} ('${e.name}')`],
      ['Contact', e.contactId ? `GET /contacts/${e.contactId}` : null],
      ['Does', 'signals the contact executions waiting for it, starts the workflows it triggers'],
    ]),
  };
}

export function routeEventBatchStart(b: { projectId: string; eventIds: string[] }): StartText {
  return {
    summary: `Routing of ${count(b.eventIds.length)} tracked events (first ${b.eventIds[0]})`,
    details: detailLines([
      ['Project', b.projectId],
      ['Events', b.eventIds.slice(0, 20).join(', ') + (b.eventIds.length > 20 ? ', …' : '')],
      ['Does', 'signals the executions waiting for them, starts the workflows they trigger'],
    ]),
  };
}

/** An endpoint's delivery workflow (temporal/workflows/webhookDelivery/): ids and the host only, since the URL's path and query may carry a receiver's token. */
export function webhookDeliveryStart(e: { id: string; projectId: string; url: string }): StartText {
  return {
    summary: `Webhook deliveries to ${safeHost(e.url)} (endpoint ${e.id})`,
    details: `Drains the PENDING deliveries of webhook endpoint ${e.id} of project ${e.projectId}; see GET /webhook-endpoints/${e.id}/deliveries.`,
  };
}

const safeHost = (url: string) => {
  try {
    return new URL(url).host;
  } catch {
    return 'an endpoint';
  }
};
