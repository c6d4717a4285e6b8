import { api, forProject, type ResponseOf, unwrap } from '../../api/client';

type Entry = ResponseOf<'/suppressions', 'get'>['data'][number];

/**
 * The "Undo" of removing a suppression: the address goes back on the list with its expiry. The API adds
 * MANUAL entries only (a bounce or complaint is the provider's word, not ours to forge), so an entry a hard
 * bounce or a complaint added comes back as added by hand, and the sentence says so.
 */
export async function restoreSuppression(projectId: string, entry: Entry): Promise<string> {
  const expiresAt = entry.expiresAt && Date.parse(entry.expiresAt) > Date.now() ? entry.expiresAt : undefined;
  await unwrap(api.POST('/suppressions', { body: { emails: [entry.email], ...(expiresAt ? { expiresAt } : {}) }, headers: forProject(projectId) }));
  const was = entry.reason === 'HARD_BOUNCE' ? 'a hard bounce' : entry.reason === 'COMPLAINT' ? 'a spam complaint' : null;
  return was ? `${entry.email} is suppressed again, as added by hand (it was ${was})` : `${entry.email} is suppressed again`;
}
