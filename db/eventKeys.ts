/**
 * Exactly-once for events whose id a writer derives (lib/ids deterministicUuid): `events` is
 * partitioned by month and so has no unique index on `id` alone (migration 062/063,
 * docs/capacity.md "Events partitioned by month"). Such a writer first claims the id in
 * `event_keys` and inserts the event only for the ids its claim returned, in the same statement,
 * so a retry (or a second path deriving the same id) adds nothing.
 */

/**
 * SQL of a data-modifying CTE body: claims the ids that `select` yields as (id, project_id); returns
 * the ids claimed by this statement (those already claimed are left out).
 */
export const claimEventKeysSql = (select: string) => `INSERT INTO event_keys (id, project_id) ${select} ON CONFLICT (id) DO NOTHING RETURNING id`;
