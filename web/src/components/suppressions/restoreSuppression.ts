import { api, forProject, type ResponseOf, unwrap } from '../../api/client';
import { i18n } from '../../i18n';

type Entry = ResponseOf<'/suppressions', 'get'>['data'][number];

/**
 * The "Undo" of removing a suppression: the address goes back on the list with its expiry. The API adds
 * MANUAL entries only (a bounce or complaint is the provider's word, not ours to forge), so an entry a hard
 * bounce or a complaint added comes back as added by hand, and the sentence says so.
 */
export async function restoreSuppression(projectId: string, entry: Entry): Promise<string> {
  const expiresAt = entry.expiresAt && Date.parse(entry.expiresAt) > Date.now() ? entry.expiresAt : undefined;
  // The project is named here, not left to the client's middleware: Undo outlives the page (its toast
  // stays while the person opens another project), and the entry goes back where it was removed.
  await unwrap(api.POST('/suppressions', { body: { emails: [entry.email], ...(expiresAt ? { expiresAt } : {}) }, headers: forProject(projectId) }));
  const t = i18n.getFixedT(null, 'mail');
  const was = entry.reason === 'HARD_BOUNCE' ? t('suppressions.wasBounce') : entry.reason === 'COMPLAINT' ? t('suppressions.wasComplaint') : null;
  return was ? t('suppressions.againByHand', { email: entry.email, was }) : t('suppressions.again', { email: entry.email });
}
