/**
 * Every react-query key the dashboard uses, built in one place, so a page's query and the mutation
 * that invalidates it cannot drift apart. The arrays are the ones the pages spelled by hand before,
 * so caching behaves as it did: a resource's lists sit under its root (`keys.campaigns.all(p)`), so
 * invalidating the root refreshes every page, search and filter of it; a detail key has its own root
 * (`['campaign', p, id]`), so saving one row does not refetch every list and the reverse.
 *
 * Parts after the project id are whatever the page passes (search text, filters, cursors); they only
 * need to be serialisable.
 */
type Part = unknown;

export const keys = {
  /** The signed-in user's own data: no project in the key. */
  me: () => ['me'] as const,
  sessions: () => ['sessions'] as const,
  twoFactor: () => ['two-factor'] as const,
  config: () => ['config'] as const,
  invite: (token: Part) => ['invite', token] as const,
  projects: {
    all: () => ['projects'] as const,
  },

  contacts: {
    all: (projectId: string) => ['contacts', projectId] as const,
    search: (projectId: string, matching: Part, sort: Part, cursor: Part) => ['contacts', projectId, 'search', matching, sort, cursor] as const,
    picker: (projectId: string, search: Part) => ['contacts', projectId, 'picker', search] as const,
    count: (projectId: string, key: Part) => ['contacts-count', projectId, key] as const,
    one: (projectId: string, id: Part) => ['contact', projectId, id] as const,
    timeline: (projectId: string, id: Part, kind: Part) => ['contact-timeline', projectId, id, kind] as const,
    emails: (projectId: string, id: Part, cursor: Part) => ['contact-emails', projectId, id, cursor] as const,
    job: (projectId: string, kind: Part, jobId: Part) => ['contact-job', projectId, kind, jobId] as const,
    views: (projectId: string) => ['contact-views', projectId] as const,
  },
  contactFields: {
    all: (projectId: string) => ['contact-fields', projectId] as const,
  },

  campaigns: {
    all: (projectId: string) => ['campaigns', projectId] as const,
    list: (projectId: string, search: Part, status: Part, page: Part) => ['campaigns', projectId, search, status, page] as const,
    one: (projectId: string, id: Part) => ['campaign', projectId, id] as const,
    runs: (projectId: string, id: Part) => ['campaign-runs', projectId, id] as const,
    stats: (projectId: string, id: Part) => ['campaign-stats', projectId, id] as const,
    series: (projectId: string, id: Part, moved: Part) => ['campaign-series', projectId, id, moved] as const,
    recipients: (projectId: string, id: Part, filter: Part) => ['campaign-recipients', projectId, id, filter] as const,
    links: (projectId: string, id: Part) => ['campaign-links', projectId, id] as const,
    clickMap: (projectId: string, id: Part, updatedAt: Part) => ['campaign-click-map', projectId, id, updatedAt] as const,
  },

  templates: {
    all: (projectId: string) => ['templates', projectId] as const,
    list: (projectId: string, search: Part, type: Part, page: Part) => ['templates', projectId, search, type, page] as const,
    picker: (projectId: string) => ['templates', projectId, 'picker'] as const,
    one: (projectId: string, id: Part) => ['template', projectId, id] as const,
    draft: (projectId: string, id: Part) => ['template-draft', projectId, id] as const,
    versions: (projectId: string, id: Part) => ['template-versions', projectId, id] as const,
    versionPreview: (projectId: string, id: Part, version: Part) => ['template-version-preview', projectId, id, version] as const,
    usage: (projectId: string, id: Part) => ['template-usage', projectId, id] as const,
    preview: (projectId: string, source: Part) => ['template-preview', projectId, source] as const,
    starters: (projectId: string) => ['template-starters', projectId] as const,
    starterPreview: (projectId: string, starterId: Part) => ['starter-preview', projectId, starterId] as const,
    emailPreview: (projectId: string, source: Part) => ['email-preview', projectId, source] as const,
    brand: (projectId: string) => ['brand', projectId] as const,
  },

  segments: {
    all: (projectId: string) => ['segments', projectId] as const,
    one: (projectId: string, id: Part) => ['segment', projectId, id] as const,
    members: (projectId: string, id: Part) => ['segment-members', projectId, id] as const,
    membersPage: (projectId: string, id: Part, page: Part) => ['segment-members', projectId, id, page] as const,
  },

  topics: {
    all: (projectId: string) => ['topics', projectId] as const,
  },

  forms: {
    all: (projectId: string) => ['forms', projectId] as const,
    one: (projectId: string, id: Part) => ['forms', projectId, id] as const,
  },

  workflows: {
    all: (projectId: string) => ['workflows', projectId] as const,
    list: (projectId: string, page: Part, search: Part) => ['workflows', projectId, page, search] as const,
    one: (projectId: string, id: Part) => ['workflow', projectId, id] as const,
    versions: (projectId: string, id: Part, enabled: Part) => ['workflow', projectId, id, 'versions', enabled] as const,
    stats: (projectId: string, id: Part) => ['workflow-stats', projectId, id] as const,
    testRun: (projectId: string, id: Part, executionId: Part) => ['workflow-test-run', projectId, id, executionId] as const,
    starters: (projectId: string) => ['workflow-starters', projectId] as const,
    stepTypes: (projectId: string) => ['step-types', projectId] as const,
    picker: (picker: Part, projectId: string) => ['picker', picker, projectId] as const,
  },

  /** One workflow's executions: the list pages, the per-status counts and one execution. */
  executions: {
    all: (projectId: string, workflowId: Part) => ['executions', projectId, workflowId] as const,
    list: (projectId: string, workflowId: Part, status: Part, page: Part, search: Part) =>
      ['executions', projectId, workflowId, 'list', status, page, search] as const,
    count: (projectId: string, workflowId: Part, status: Part) => ['executions', projectId, workflowId, 'count', status] as const,
    one: (projectId: string, workflowId: Part, executionId: Part) => ['executions', projectId, workflowId, 'detail', executionId] as const,
  },

  webhooks: {
    all: (projectId: string) => ['webhooks', projectId] as const,
    deliveries: (projectId: string, endpointId: Part) => ['webhook-deliveries', projectId, endpointId] as const,
    deliveriesPage: (projectId: string, endpointId: Part, status: Part, cursor: Part) => ['webhook-deliveries', projectId, endpointId, status, cursor] as const,
  },

  suppressions: {
    all: (projectId: string) => ['suppressions', projectId] as const,
    list: (projectId: string, search: Part, reason: Part, cursor: Part) => ['suppressions', projectId, search, reason, cursor] as const,
  },

  inbound: {
    all: (projectId: string) => ['inbound', projectId] as const,
    list: (projectId: string, kind: Part, cursor: Part) => ['inbound', projectId, kind, cursor] as const,
    one: (projectId: string, id: Part) => ['inbound', projectId, 'one', id] as const,
  },

  /** One sent email and its stored content (contact pages, campaign recipients). */
  emails: {
    one: (projectId: string, id: Part) => ['email', projectId, id] as const,
    content: (projectId: string, id: Part) => ['email-content', projectId, id] as const,
  },

  domains: {
    all: (projectId: string) => ['domains', projectId] as const,
    tracking: (projectId: string) => ['tracking-domain', projectId] as const,
  },

  apiKeys: {
    all: (projectId: string) => ['api-keys', projectId] as const,
  },
  team: {
    all: (projectId: string) => ['team', projectId] as const,
  },
  setupState: (projectId: string) => ['setup-state', projectId] as const,
  settings: (projectId: string) => ['settings', projectId] as const,
  billing: {
    consumption: (projectId: string) => ['billing-consumption', projectId] as const,
  },

  events: {
    all: (projectId: string) => ['events', projectId] as const,
    list: (projectId: string, name: Part) => ['events', projectId, name] as const,
    names: (projectId: string) => ['event-names', projectId] as const,
    namesSince: (projectId: string, days: Part) => ['event-names', projectId, days] as const,
    usage: (projectId: string, name: Part) => ['event-usage', projectId, name] as const,
  },

  analytics: {
    series: (projectId: string, metric: Part, days: Part) => ['analytics-series', projectId, metric, days] as const,
    topEvents: (projectId: string, days: Part) => ['analytics-top-events', projectId, days] as const,
    topCampaigns: (projectId: string, days: Part) => ['analytics-top-campaigns', projectId, days] as const,
  },

  activity: (projectId: string, types: Part, cursor: Part) => ['activity', projectId, types, cursor] as const,
  audit: (projectId: string, action: Part, page: Part) => ['audit', projectId, action, page] as const,
};
