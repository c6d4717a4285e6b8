import crypto from 'node:crypto';
import type { Harness } from './harness';

/** Marks a sender domain verified without DNS (the domains tests cover the DNS path). */
export async function verifiedDomain(h: Harness, projectId: string, domain: string): Promise<void> {
  await h.deps.knex('domains').insert({
    id: crypto.randomUUID(),
    project_id: projectId,
    domain,
    token: 'test',
    status: 'VERIFIED',
    records: JSON.stringify([]),
    verified_at: new Date(),
  });
}

export const uniqueEmail = (tag = 'c') => `${tag}-${crypto.randomBytes(5).toString('hex')}@example.org`;
