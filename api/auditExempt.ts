/**
 * The state-changing routes that write no audit entry, each with its reason (docs/privacy.md
 * "Audit log"). Every other route that is not a GET declares `audit` (api/route.ts), and
 * test/unit/auditCoverage.test.ts fails on a route that does neither, or on a name here that no
 * route has any more. Adding a route here is a decision: say why its change needs no entry.
 */
const EXEMPT: Record<string, readonly string[]> = {
  // Accounts, not projects: the audit log is a project's, and these act on the caller's own
  // account before (or without) any project. Sessions end by version, resets and verifications by token.
  'accounts and sign-in': [
    'POST /auth/signup',
    'POST /auth/login',
    'POST /auth/logout',
    'POST /auth/logout-all',
    'POST /auth/request-verification',
    'POST /auth/verify-email',
    'POST /auth/request-password-reset',
    'POST /auth/reset-password',
    'POST /verify-email',
    'POST /reset-password',
    'POST /signup',
    'POST /auth/login/two-factor',
    'POST /users/@me/two-factor/setup',
    'POST /users/@me/two-factor/enable',
    'POST /users/@me/two-factor/disable',
    'POST /users/@me/two-factor/recovery-codes',
    'PATCH /users/@me',
    'POST /users/@me/password',
    'POST /users/@me/email',
    'POST /auth/confirm-email-change',
    'DELETE /users/@me/sessions/:id',
  ],
  // The invitee accepts an offer an owner or admin made, and that offer was audited (`member.invite`);
  // the member list shows who joined.
  'accepting an invite': ['POST /auth/invites/accept', 'POST /invite'],
  // The log is deleted with its project (docs/privacy.md): an entry here would be deleted by its own change.
  'deleting the project': ['DELETE /users/@me/projects/:id'],
  // Open a session at the billing provider and change nothing here; what changes arrives by its signed webhook.
  'billing provider sessions': ['POST /users/@me/projects/:id/checkout', 'POST /users/@me/projects/:id/billing-portal'],
  // Called by providers, not people, and checked by their signatures; what they change is in the
  // emails, suppressions and billing rows they update.
  'provider webhooks': ['POST /webhooks/sendgrid', 'POST /webhooks/ses', 'POST /webhooks/incoming/stripe'],
  // The traffic a project exists for, at its volume: each email and event is its own record
  // (the activity feed), so an entry per call would only bury the changes the log is for.
  // Rescheduling or cancelling one scheduled email is that email's own traffic (its row shows it).
  'sends and tracking': [
    'POST /v1/send',
    'POST /v1/send/batch',
    'PATCH /emails/:id',
    'POST /emails/:id/cancel',
    'POST /v1/track',
    'POST /events/track',
    'POST /campaigns/:id/test',
    'POST /templates/:id/test',
  ],
  // Contact upserts are the same traffic (a server writes one per signup); subscription changes in
  // them leave consent records, deletions and erasures are audited.
  'contact upserts': ['POST /contacts', 'PATCH /contacts/:id'],
  // A contact acting on their own subscription by a signed link: the consent record is the trail.
  'subscription links': ['POST /unsubscribe/:token', 'POST /subscribe/:token', 'POST /confirm/:token', 'POST /manage/:token'],
  // A person signing up on a project's form (docs/forms.md): the consent record (source form:<id>) is the trail.
  'signup form submissions': ['POST /f/:id'],
  // Reads that take a body: they change nothing.
  'reads sent as POST': ['POST /contacts/count', 'POST /contacts/lookup', 'POST /contacts/import/preview', 'POST /templates/preview', 'POST /v1/verify'],
  // Finer edits inside an audited thing (whose creation, changes and deletion are entries): a
  // segment's members and recounts, a workflow graph's steps and transitions, an uploaded image.
  // Nothing reaches a contact until a send, an enable or a trigger, which are audited.
  'edits inside a thing': [
    'POST /uploads/image',
    'POST /segments/:id/members',
    'DELETE /segments/:id/members',
    'POST /segments/:id/compute',
    'POST /segments/:id/refresh',
    'POST /workflows/:id/steps',
    'PATCH /workflows/:id/steps/:stepId',
    'DELETE /workflows/:id/steps/:stepId',
    'POST /workflows/:id/transitions',
    'DELETE /workflows/:id/transitions/:transitionId',
  ],
  // Controls over work audited when it started (`campaign.send`, `workflow.enable`): a pause or a
  // resume is an update to the running send's workflow, and each execution keeps its own status and
  // times. (Cancelling a campaign is audited: it ends the send.) A test run is an execution too,
  // marked in its row with who asked for it (POST /workflows/:id/test).
  'controls of running work': [
    'POST /campaigns/:id/pause',
    'POST /campaigns/:id/resume',
    'POST /workflows/:id/executions',
    'POST /workflows/:id/test',
    'DELETE /workflows/:id/executions/:executionId',
    'POST /workflows/:id/executions/cancel-all',
  ],
  // A DNS check of a tracking domain already set (audited): it records what DNS answered, as GET /domains/:id/verify does.
  'DNS checks': ['POST /tracking-domain/check'],
  // Deliver to an endpoint that is already audited: test messages and retries are in its delivery log.
  'webhook deliveries': ['POST /webhook-endpoints/:id/test', 'POST /webhook-endpoints/:id/deliveries/:deliveryId/retry'],
};

/** `METHOD /path`, as the exempt list names a route. */
export const routeName = (r: { method: string; path: string }) => `${r.method.toUpperCase()} ${r.path}`;

/** Every exempt route's name, with the group (the reason) it is listed under. */
export const AUDIT_EXEMPT: ReadonlyMap<string, string> = new Map(Object.entries(EXEMPT).flatMap(([why, names]) => names.map((n) => [n, why] as const)));

/**
 * What is wrong with a route table's audit coverage, one line per problem (empty: nothing): a write
 * route with neither `audit` nor a place on the exempt list, or with both; an exempt name no write
 * route has; a `role` without an `audit` to name in its denials.
 */
export function auditCoverageProblems(
  routes: ReadonlyArray<{ method: string; path: string; audit?: unknown; role?: unknown }>,
  exempt: ReadonlyMap<string, string> = AUDIT_EXEMPT,
): string[] {
  const problems: string[] = [];
  const writes = new Set<string>();
  for (const r of routes) {
    const name = routeName(r);
    const declared = r.audit !== undefined && !(Array.isArray(r.audit) && r.audit.length === 0);
    if (r.role !== undefined && !declared) problems.push(`${name} declares a role but no audit action for its denials to name`);
    if (r.method === 'get') continue;
    writes.add(name);
    if (declared && exempt.has(name)) problems.push(`${name} declares audit and is on the exempt list ("${exempt.get(name)}"): remove one`);
    if (!declared && !exempt.has(name)) problems.push(`${name} changes state but declares no audit action and is not on the exempt list (api/auditExempt.ts)`);
  }
  for (const name of exempt.keys()) if (!writes.has(name)) problems.push(`${name} is on the exempt list but no write route has that name`);
  return problems;
}
