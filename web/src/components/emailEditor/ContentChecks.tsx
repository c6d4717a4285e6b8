import type { PreviewInput } from '../../api/emailEditor';
import { useEmailPreview } from './useEmailPreview';
import { ChecksPanel } from './ChecksPanel';

/**
 * The "Checks" of an HTML email that is not a template (a campaign's own content), for the send and
 * schedule confirmations: the same server checks as the template editor's, shown before sending.
 */
export function ContentChecks({
  projectId,
  subject,
  body,
  text,
  type,
}: {
  projectId: string;
  subject: string;
  body: string;
  text: string | null;
  type: PreviewInput['type'];
}) {
  const preview = useEmailPreview(projectId, { subject, editor: 'html', body, text, type, data: {} });
  return <ChecksPanel checks={preview.data?.checks} pending={preview.isFetching} />;
}
