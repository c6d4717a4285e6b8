import { route } from '../route';
import { requestAuditor } from '../../services/audit';
import { recordAudit } from '../../db/auditLog';
import { waitPaths } from '../../services/stepReferences';
import { badRequest, notFound, validationError } from '../errors';
import { TrackBody, TrackOut, isReservedEventName } from '../schemas/track';
import { isEmittableEventName } from '../../lib/reservedEvents';
import {
  ContactEventsParams,
  ContactEventsQuery,
  EventListQuery,
  EventNameParams,
  EventNamesOut,
  EventNamesQuery,
  EventPageOut,
  EventStatsOut,
  EventStatsQuery,
  EventUsageOut,
} from '../schemas/events';
import { windowOf } from '../schemas/analytics';
import { trackEvent } from '../../services/track';
import { findContact } from '../../db/contactReaders';
import { countEvents, countEventsByName, deleteEventsByName, EventListRow, eventNames, listEvents, parseTimeCursor } from '../../db/eventQueries';
import { eventReferences } from '../../db/references';

function cursorOf(raw: string | undefined) {
  if (raw === undefined) return undefined;
  const after = parseTimeCursor(raw);
  if (!after) throw badRequest('Invalid cursor: pass the cursor of a previous page');
  return after;
}

const presentEvent = (e: EventListRow) => ({
  id: e.id,
  name: e.name,
  contactId: e.contact_id,
  contactEmail: e.contact_email,
  data: e.data ?? {},
  createdAt: new Date(e.created_at).toISOString(),
});

// Fixed paths (/events/track, /stats, /names, /contact/…) come before `/events/:eventName…`.
export default [
  route({
    method: 'post',
    path: '/events/track',
    auth: 'secret',
    scope: 'track',
    tag: 'events',
    summary: 'Record an event for a contact with the secret key: the dashboard alias of POST /v1/track (same body, same behaviour)',
    body: TrackBody,
    idempotent: true,
    responses: { 200: { description: 'recorded', schema: TrackOut }, 409: { description: 'Idempotency-Key reused' } },
    async handler(ctx, { body, project }) {
      const r = await trackEvent(ctx.deps, project.id, body, project.double_opt_in);
      return { success: true, data: { contact: r.contactId, event: r.eventId, timestamp: new Date(r.createdAt).toISOString() } };
    },
  }),
  route({
    method: 'get',
    path: '/events',
    auth: 'secret',
    scope: 'track',
    tag: 'events',
    summary: 'Recent events, newest first (cursor pagination), filterable by name, contact and time',
    query: EventListQuery,
    responses: { 200: { description: 'a page of events', schema: EventPageOut } },
    async handler(ctx, { query, project }) {
      const page = await listEvents(ctx.deps.knex, { ...query, projectId: project.id, after: cursorOf(query.cursor) });
      return { data: page.rows.map(presentEvent), cursor: page.cursor, hasMore: page.hasMore };
    },
  }),
  route({
    method: 'get',
    path: '/events/stats',
    auth: 'secret',
    scope: 'track',
    tag: 'events',
    summary: 'Events per name over the last `days` days',
    query: EventStatsQuery,
    responses: { 200: { description: 'counts per name, most frequent first', schema: EventStatsOut } },
    async handler(ctx, { query, project }) {
      const { from, to } = windowOf(query.days);
      const [totals, data] = await Promise.all([
        countEvents(ctx.deps.knex, project.id, from, to),
        countEventsByName(ctx.deps.knex, { projectId: project.id, from, to, limit: query.limit }),
      ]);
      return { from: from.toISOString(), to: to.toISOString(), ...totals, data };
    },
  }),
  route({
    method: 'get',
    path: '/events/names',
    auth: 'secret',
    scope: 'track',
    tag: 'events',
    summary: 'Distinct event names with their count over the last `days` days and when each was last seen',
    query: EventNamesQuery,
    responses: { 200: { description: 'names in alphabetical order', schema: EventNamesOut } },
    async handler(ctx, { query, project }) {
      const rows = await eventNames(ctx.deps.knex, project.id, windowOf(query.days).from, query.limit);
      return {
        data: rows.map((r) => ({ name: r.name, count: r.count, lastSeen: new Date(r.lastSeen).toISOString(), reserved: isReservedEventName(r.name) })),
      };
    },
  }),
  route({
    method: 'get',
    path: '/events/contact/:contactId',
    auth: 'secret',
    scope: 'track',
    tag: 'events',
    resource: 'Contact',
    summary: 'Every event of one contact, newest first (cursor pagination)',
    params: ContactEventsParams,
    query: ContactEventsQuery,
    responses: { 200: { description: 'a page of events', schema: EventPageOut } },
    async handler(ctx, { params, query, project }) {
      const after = cursorOf(query.cursor);
      if (!(await findContact(ctx.deps.knex, project.id, params.contactId))) throw notFound('Contact');
      const page = await listEvents(ctx.deps.knex, { projectId: project.id, contactId: params.contactId, limit: query.limit, after });
      return { data: page.rows.map(presentEvent), cursor: page.cursor, hasMore: page.hasMore };
    },
  }),
  route({
    method: 'get',
    path: '/events/:eventName/usage',
    auth: 'secret',
    scope: 'track',
    tag: 'events',
    resource: 'Event',
    summary: 'Segments, campaign audiences and workflows (triggers, WAIT_FOR_EVENT steps, CONDITION filters) that reference the event name',
    params: EventNameParams,
    responses: { 200: { description: 'references', schema: EventUsageOut } },
    async handler(ctx, { params, project }) {
      return { event: params.eventName, ...(await eventReferences(ctx.deps.knex, project.id, params.eventName, waitPaths(ctx.deps.steps))) };
    },
  }),
  route({
    method: 'delete',
    path: '/events/:eventName',
    audit: 'event.delete',
    auth: 'secret',
    scope: 'track',
    tag: 'events',
    resource: 'Event',
    summary: 'Delete every event of that name in the project (names the service emits itself are refused)',
    params: EventNameParams,
    responses: { 204: { description: 'deleted (also when there was none)' }, 422: { description: 'reserved event name (reserved_event)' } },
    async handler(ctx, { params, project }) {
      // The service's own events (email.*, subscription changes, segment entry/exit) are the history
      // the activity feed, analytics and segment filters read: callers cannot track them, nor erase them.
      // Lookalikes written before names were compared after NFKC (`ｃampaign.sent`) were never the service's: they may go.
      if (isEmittableEventName(params.eventName)) {
        throw validationError([{ field: 'eventName', message: `"${params.eventName}" is a reserved event name`, code: 'reserved_event' }]);
      }
      // Deleted in batches on purpose, as a field's removal is: the entry is committed first.
      await recordAudit(ctx.deps.knex, {
        ...requestAuditor(ctx),
        projectId: project.id,
        action: 'event.delete',
        target: { type: 'event', id: params.eventName },
      });
      await deleteEventsByName(ctx.deps.knex, project.id, params.eventName);
      ctx.status = 204;
    },
  }),
];
