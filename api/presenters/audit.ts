import type { z } from 'zod';
import type { AuditRow } from '../../db/auditLog';
import type { AuditEntryOut } from '../schemas/audit';

export const presentAuditEntry = (r: AuditRow): z.infer<typeof AuditEntryOut> => ({
  id: String(r.id),
  at: new Date(r.at).toISOString(),
  actor: r.actor,
  actorEmail: r.actor_email,
  action: r.action,
  target: { type: r.target_type, id: r.target_id },
  details: r.details,
  ip: r.ip,
});
