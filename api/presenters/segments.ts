import type { z } from 'zod';
import type { SegmentOut } from '../schemas/segments';
import type { SegmentRow } from '../../db/segments';

/** Response shapes of the segments routes, typed by their `*Out` schemas (api/schemas). */

export function presentSegment(row: SegmentRow): z.input<typeof SegmentOut> {
  return {
    id: row.id,
    name: row.name,
    slug: row.slug,
    description: row.description,
    type: row.type,
    condition: row.condition ?? null,
    trackMembership: row.track_membership,
    memberCount: row.member_count,
    projectId: row.project_id,
    createdAt: new Date(row.created_at).toISOString(),
    updatedAt: new Date(row.updated_at).toISOString(),
  };
}
