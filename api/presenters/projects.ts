import type { z } from 'zod';
import type { ProjectOut } from '../schemas/projects';
import type { ProjectRow } from '../../db/projects';
import { iso } from '../../lib/time';

/** Response shapes of the projects routes, typed by their `*Out` schemas (api/schemas). */

/** The shape the dashboard sees; full keys only right after creation or rotation. */
export function presentProject(row: ProjectRow, keys?: { publicKey: string; secretKey: string }): z.input<typeof ProjectOut> {
  return {
    id: row.id,
    name: row.name,
    slug: row.slug,
    publicKey: keys?.publicKey ?? `pk_…${row.public_key_last4}`,
    secretKey: keys?.secretKey ?? `sk_…${row.secret_key_last4}`,
    disabled: row.disabled,
    requireTwoFactor: row.require_two_factor ?? false,
    createdAt: iso(row.created_at)!,
    updatedAt: iso(row.updated_at)!,
  };
}
