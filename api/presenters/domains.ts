import type { z } from 'zod';
import type { DomainOut } from '../schemas/domains';
import type { DomainRow } from '../../db/domains';
import { iso } from '../../lib/time';

/** Response shapes of the domains routes, typed by their `*Out` schemas (api/schemas). */

export function presentDomain(row: DomainRow): z.input<typeof DomainOut> {
  return {
    id: row.id,
    domain: row.domain,
    projectId: row.project_id,
    status: row.status,
    records: row.records.map((r) => ({ ...r, problem: r.problem ?? null })),
    lastCheckedAt: iso(row.last_checked_at),
    verifiedAt: iso(row.verified_at),
    createdAt: iso(row.created_at)!,
  };
}
