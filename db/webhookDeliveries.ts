import type { Knex } from 'knex';
import { matchesPatternsSql } from './webhookEndpoints';
import { timeKeySql } from './cursors';
import { timePage, TimeCursor, TimePage } from './eventQueries';

export type WebhookDeliveryStatus = 'PENDING' | 'DELIVERED' | 'FAILED';

export interface WebhookDeliveryRow {
  id: string;
  endpoint_id: string;
  source_key: string;
  event_id: string | null;
  type: string;
  body: string;
  status: WebhookDeliveryStatus;
  attempts: number;
  last_status_code: number | null;
  last_error: string | null;
  next_attempt_at: Date | null;
  delivered_at: Date | null;
  window_started_at: Date;
  created_at: Date;
}

/** An endpoint that got new work: its delivery workflow must be woken. */
export interface WokenEndpoint {
  id: string;
  project_id: string;
  url: string;
}

const ISO_MS = (column: string) => `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

/**
 * The message body (`{ type, timestamp, data }`) of an event, built in SQL: `data` names the event,
 * the contact (id, email), the email and campaign it concerns, and carries the event's own data.
 */
const EVENT_BODY = `jsonb_build_object(
    'type', e.name,
    'timestamp', ${ISO_MS('e.created_at')},
    'data', jsonb_strip_nulls(jsonb_build_object(
      'eventId', e.id,
      'contact', CASE WHEN c.id IS NULL THEN NULL ELSE jsonb_build_object('id', c.id, 'email', c.email) END,
      'emailId', e.data -> 'emailId',
      'campaignId', e.data -> 'campaignId'
    )) || jsonb_build_object('data', e.data)
  )::text`;

/**
 * One statement per batch of events: every enabled endpoint of the event's project whose patterns
 * match its name gets a PENDING delivery (once: a repeated batch inserts nothing). Returns every
 * endpoint the events match, new rows or not, so a retried hand-off still wakes them.
 */
export async function enqueueEventDeliveries(db: Knex, eventIds: string[]): Promise<WokenEndpoint[]> {
  if (!eventIds.length) return [];
  const { rows } = await db.raw(
    `WITH m AS (
       SELECT w.id AS endpoint_id, e.id AS event_id, e.name, ${EVENT_BODY} AS body
         FROM events e
         JOIN webhook_endpoints w ON w.project_id = e.project_id AND w.enabled AND ${matchesPatternsSql('w.events', 'e.name')}
         LEFT JOIN contacts c ON c.id = e.contact_id
        WHERE e.id = ANY(?::uuid[])
     ), ins AS (
       INSERT INTO webhook_deliveries (endpoint_id, source_key, event_id, type, body)
       SELECT endpoint_id, event_id::text, event_id, name, body FROM m
       ON CONFLICT (endpoint_id, source_key) DO NOTHING
     )
     SELECT w.id, w.project_id, w.url FROM webhook_endpoints w WHERE w.id IN (SELECT endpoint_id FROM m)`,
    [eventIds],
  );
  return rows;
}

export interface SystemMessage {
  projectId: string;
  type: string;
  /** Names the message once per endpoint (`campaign.sent:<id>`): a repeat inserts nothing. */
  sourceKey: string;
  data: Record<string, unknown>;
  /** Only this endpoint, whatever its patterns (webhook.test); otherwise the project's matching ones. */
  endpointId?: string;
  /** Left out (webhook.disabled is not sent to the endpoint it is about). */
  exceptEndpointId?: string;
}

/**
 * A message that has no event row (campaign.sent, campaign.cancelled, webhook.*): written
 * straight to the matching endpoints' queues.
 */
export async function enqueueSystemDeliveries(db: Knex, m: SystemMessage): Promise<{ endpoints: WokenEndpoint[]; deliveryIds: string[] }> {
  const target = m.endpointId ? 'w.id = ?' : `w.enabled AND ${matchesPatternsSql('w.events', 't.name')}`;
  const { rows } = await db.raw(
    `WITH t AS (SELECT ?::text AS name), w AS (
       SELECT w.id, w.project_id, w.url FROM webhook_endpoints w, t
        WHERE w.project_id = ? AND ${target} AND w.id IS DISTINCT FROM ?::uuid
     ), ins AS (
       INSERT INTO webhook_deliveries (endpoint_id, source_key, type, body)
       SELECT w.id, ?, t.name, jsonb_build_object('type', t.name, 'timestamp', ${ISO_MS('now()')}, 'data', ?::jsonb)::text FROM w, t
       ON CONFLICT (endpoint_id, source_key) DO NOTHING
       RETURNING id
     )
     SELECT w.*, (SELECT coalesce(array_agg(id), '{}') FROM ins) AS delivery_ids FROM w`,
    [m.type, m.projectId, ...(m.endpointId ? [m.endpointId] : []), m.exceptEndpointId ?? null, m.sourceKey, JSON.stringify(m.data)],
  );
  return { endpoints: rows.map(({ delivery_ids: _ids, ...w }: any) => w), deliveryIds: rows[0]?.delivery_ids ?? [] };
}

/** The endpoint's due messages, oldest due first. */
export async function dueDeliveries(db: Knex, endpointId: string, limit: number): Promise<Pick<WebhookDeliveryRow, 'id' | 'type' | 'body' | 'attempts'>[]> {
  return db('webhook_deliveries')
    .where({ endpoint_id: endpointId, status: 'PENDING' })
    .where('next_attempt_at', '<=', db.fn.now())
    .orderBy([{ column: 'next_attempt_at' }, { column: 'id' }])
    .limit(limit)
    .select('id', 'type', 'body', 'attempts');
}

export interface AttemptOutcome {
  id: string;
  ok: boolean;
  statusCode: number | null;
  error: string | null;
  /** After a failure: wait this long before the next attempt. */
  retryInMs: number;
}

/**
 * Records a round of attempts in one statement. A failure is retried after its delay unless that
 * would fall beyond the message's retry window: then it is FAILED.
 */
export async function recordAttempts(db: Knex, outcomes: AttemptOutcome[], retryWindowMs: number): Promise<void> {
  if (!outcomes.length) return;
  await db.raw(
    `UPDATE webhook_deliveries d
        SET attempts = d.attempts + 1,
            last_status_code = o.code,
            last_error = o.error,
            status = CASE WHEN o.ok THEN 'DELIVERED'
                          WHEN d.window_started_at + ? * interval '1 millisecond' < now() + o.retry_ms * interval '1 millisecond' THEN 'FAILED'
                          ELSE 'PENDING' END,
            next_attempt_at = CASE WHEN o.ok OR d.window_started_at + ? * interval '1 millisecond' < now() + o.retry_ms * interval '1 millisecond' THEN NULL
                                   ELSE now() + o.retry_ms * interval '1 millisecond' END,
            delivered_at = CASE WHEN o.ok THEN now() END
       FROM unnest(?::uuid[], ?::boolean[], ?::int[], ?::text[], ?::float8[]) AS o(id, ok, code, error, retry_ms)
      WHERE d.id = o.id AND d.status = 'PENDING'`,
    [
      retryWindowMs,
      retryWindowMs,
      outcomes.map((o) => o.id),
      outcomes.map((o) => o.ok),
      outcomes.map((o) => o.statusCode),
      outcomes.map((o) => o.error),
      outcomes.map((o) => o.retryInMs),
    ] as Knex.RawBinding[],
  );
}

/** Milliseconds until the endpoint's next pending message is due (0: now); null when none is pending. */
export async function nextDueInMs(db: Knex, endpointId: string): Promise<number | null> {
  const { rows } = await db.raw(
    // Not greatest(0, …): it skips a NULL (nothing pending) and would answer 0.
    `SELECT (extract(epoch FROM min(next_attempt_at) - now()) * 1000)::float8 AS ms
       FROM webhook_deliveries WHERE endpoint_id = ? AND status = 'PENDING'`,
    [endpointId],
  );
  const ms = rows[0]?.ms;
  return ms === null || ms === undefined ? null : Math.max(0, Math.ceil(Number(ms)));
}

/** A disabled endpoint's queue ends here. */
export async function failPendingDeliveries(db: Knex, endpointId: string, reason: string): Promise<number> {
  return db('webhook_deliveries').where({ endpoint_id: endpointId, status: 'PENDING' }).update({ status: 'FAILED', last_error: reason, next_attempt_at: null });
}

/** A message sent again from its first attempt's state: PENDING, due now, its retry window restarted. */
export async function retryDelivery(db: Knex, endpointId: string, id: string): Promise<WebhookDeliveryRow | undefined> {
  const [row] = await db<WebhookDeliveryRow>('webhook_deliveries')
    .where({ endpoint_id: endpointId, id })
    .update({ status: 'PENDING', next_attempt_at: db.fn.now() as any, window_started_at: db.fn.now() as any, delivered_at: null })
    .returning('*');
  return row;
}

export async function findDelivery(db: Knex, endpointId: string, id: string): Promise<WebhookDeliveryRow | undefined> {
  return db<WebhookDeliveryRow>('webhook_deliveries').where({ endpoint_id: endpointId, id }).first();
}

// ───────────────────────────── listing ─────────────────────────────

/** Newest first, keyset over (created_at, id), with the events listing's cursors. */
export async function listDeliveries(
  db: Knex,
  input: { endpointId: string; limit: number; after?: TimeCursor; status?: WebhookDeliveryStatus },
): Promise<TimePage<WebhookDeliveryRow>> {
  const q = db('webhook_deliveries')
    .where({ endpoint_id: input.endpointId })
    .select('*', db.raw(`${timeKeySql('created_at')} AS sort_key`))
    .orderBy([
      { column: 'created_at', order: 'desc' },
      { column: 'id', order: 'desc' },
    ])
    .limit(input.limit + 1);
  if (input.status) q.andWhere('status', input.status);
  if (input.after) q.andWhereRaw('(created_at, id) < (?::timestamptz, ?::uuid)', [input.after.at, input.after.id]);
  return timePage((await q) as Array<WebhookDeliveryRow & { sort_key: string }>, input.limit);
}
