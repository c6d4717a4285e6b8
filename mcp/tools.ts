import { z } from 'zod';
import type { Deps } from '../api/context';
import { ApiError, FlatError, fromDomainError } from '../api/errors';
import { DomainError } from '../lib/domainErrors';
import { SendBody } from '../api/schemas/send';
import { TrackBody } from '../api/schemas/track';
import { ContactIdParams, ContactListQuery } from '../api/schemas/contacts';
import { TemplateListQuery } from '../api/schemas/templates';
import { CampaignBody } from '../api/schemas/campaigns';
import { WorkflowListQuery } from '../api/schemas/workflows';
import { IdParams } from '../api/schemas/common';
import { presentContact } from '../api/presenters/contacts';
import { presentTemplate } from '../api/presenters/templates';
import { presentCampaign } from '../api/presenters/campaigns';
import { type ApiKeyScope, grants } from '../db/apiKeys';
import type { ProjectRow } from '../db/projects';
import { findContact, listContacts, parseContactCursor } from '../db/contactReaders';
import { listTemplates } from '../db/templates';
import { createCampaign, findCampaign } from '../db/campaigns';
import { campaignStats } from '../db/campaignStats';
import { listWorkflows } from '../db/workflows';
import { senderCheckWaived } from '../lib/config';
import { sendEmails } from '../services/send';
import { trackEvent } from '../services/track';
import { checkedCampaignFields } from '../services/campaignFields';
import { audited } from '../services/audit';
import { lacksScope } from '../services/apiKeys';
import type { KeyPrincipal } from '../db/apiKeys';
import { apiKeyActor, SECRET_KEY_ACTOR } from '../db/auditLog';

/** Who the MCP session acts for: the key's project and scopes (services/apiKeys.ts). */
export interface McpPrincipal {
  project: ProjectRow;
  scopes: readonly ApiKeyScope[];
  key: KeyPrincipal | null;
}

type Run<S extends z.ZodType> = (deps: Deps, who: McpPrincipal, input: z.output<S>) => Promise<unknown>;

export interface McpTool<S extends z.ZodType = z.ZodType> {
  name: string;
  description: string;
  scope: ApiKeyScope;
  /** The route's own schema (api/schemas), so a tool takes exactly what its route takes. */
  input: S;
  run: Run<S>;
}

const tool = <S extends z.ZodType>(t: McpTool<S>): McpTool => t as unknown as McpTool;

/**
 * The tools, each the same services/ and db/ calls as its route: sending goes through
 * services/send.ts like /v1/send (verified sender, suppressions, throttle, tracking). Campaigns are
 * created as drafts only: no tool sends one.
 */
export const TOOLS: McpTool[] = [
  tool({
    name: 'send_email',
    description: 'Send a transactional email now (the body of POST /v1/send): to, from (a verified domain), subject, body or template',
    scope: 'send',
    input: SendBody,
    run: async (deps, who, body) => ({ emails: await sendEmails(deps, who.project.id, body) }),
  }),
  tool({
    name: 'track_event',
    description: 'Record an event for a contact (the body of POST /v1/track); creates the contact when new',
    scope: 'track',
    input: TrackBody,
    run: (deps, who, body) => trackEvent(deps, who.project.id, body, who.project.double_opt_in),
  }),
  tool({
    name: 'find_contacts',
    description: 'List or search contacts (the query of GET /contacts): search, filters, sort, cursor',
    scope: 'contacts:read',
    input: ContactListQuery,
    run: async (deps, who, query) => {
      const after = query.cursor === undefined ? undefined : parseContactCursor(query.cursor, query.sort);
      if (after === null) throw new ApiError(400, 'BAD_REQUEST', 'Invalid cursor: pass the cursor of a previous page with the same sort');
      const page = await listContacts(deps.knex, { ...query, projectId: who.project.id, after });
      return { data: page.rows.map(presentContact), cursor: page.cursor, hasMore: page.hasMore, total: page.total };
    },
  }),
  tool({
    name: 'get_contact',
    description: 'One contact by id (cnt_…)',
    scope: 'contacts:read',
    input: ContactIdParams,
    run: async (deps, who, { id }) => {
      const row = await findContact(deps.knex, who.project.id, id);
      if (!row) throw new ApiError(404, 'NOT_FOUND', 'Contact not found');
      return presentContact(row);
    },
  }),
  tool({
    name: 'list_templates',
    description: "The project's templates, a page at a time (the query of GET /templates)",
    scope: 'templates',
    input: TemplateListQuery,
    run: async (deps, who, query) => {
      const { rows, total, totalPages } = await listTemplates(deps.knex, who.project.id, query);
      return { data: rows.map(presentTemplate), total, page: query.page, pageSize: query.pageSize, totalPages };
    },
  }),
  tool({
    name: 'create_campaign_draft',
    description: 'Create a campaign as a DRAFT (the body of POST /campaigns); it is never sent from here',
    scope: 'campaigns',
    input: CampaignBody,
    run: async (deps, who, body) => {
      const fields = await checkedCampaignFields(deps.knex, who.project.id, body, senderCheckWaived(deps.config));
      const row = await audited(
        deps.knex,
        { actor: who.key ? apiKeyActor(who.key.prefix) : SECRET_KEY_ACTOR, ip: null },
        (trx) => createCampaign(trx, who.project.id, fields),
        (c) => ({ projectId: who.project.id, action: 'campaign.create', target: { type: 'campaign', id: c.id }, details: { name: c.name } }),
      );
      return presentCampaign(row);
    },
  }),
  tool({
    name: 'campaign_stats',
    description: "A campaign's counts and rates (GET /campaigns/:id/stats)",
    scope: 'campaigns',
    input: IdParams,
    run: async (deps, who, { id }) => {
      const row = await findCampaign(deps.knex, who.project.id, id);
      if (!row) throw new ApiError(404, 'NOT_FOUND', 'Campaign not found');
      return campaignStats(deps.knex, row, deps.config.email.sendRatePerSecond);
    },
  }),
  tool({
    name: 'list_workflows',
    description: "The project's workflows: name, trigger event, enabled (the query of GET /workflows)",
    scope: 'full',
    input: WorkflowListQuery,
    run: async (deps, who, query) => {
      const { rows, total, totalPages } = await listWorkflows(deps.knex, who.project.id, query);
      return {
        data: rows.map((w) => ({ id: w.id, name: w.name, description: w.description, enabled: w.enabled, eventName: w.trigger_config.eventName })),
        total,
        page: query.page,
        pageSize: query.pageSize,
        totalPages,
      };
    },
  }),
];

export type ToolResult = { content: Array<{ type: 'text'; text: string }>; isError?: boolean };
const text = (value: unknown, isError = false): ToolResult => ({
  content: [{ type: 'text', text: typeof value === 'string' ? value : JSON.stringify(value, null, 2) }],
  ...(isError ? { isError } : {}),
});

/**
 * One call: the scope first (a refusal names it), then the route's schema, then the work. The
 * API's own refusals (unverified sender, not found, validation) come back as tool errors with
 * their message; anything else is logged and answered without its internals.
 */
export async function callTool(deps: Deps, who: McpPrincipal, t: McpTool, args: unknown): Promise<ToolResult> {
  if (!grants(who.scopes, t.scope)) return text(lacksScope(t.scope), true);
  const parsed = t.input.safeParse(args ?? {});
  if (!parsed.success) return text(`Invalid input: ${parsed.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; ')}`, true);
  try {
    return text(await t.run(deps, who, parsed.data));
  } catch (err) {
    const known = err instanceof DomainError ? fromDomainError(err) : err;
    if (known instanceof ApiError) return text(`${known.code}: ${known.message}`, true);
    if (err instanceof FlatError) return text(err.message, true);
    deps.log.error({ err, tool: t.name }, 'MCP tool failed');
    return text('The tool failed unexpectedly', true);
  }
}
