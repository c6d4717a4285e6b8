import type { EmailDocument, PreviewInput } from '../../api/emailEditor';
import { useEmailPreview } from '../../api/hooks/templates';
import { ChecksPanel } from './ChecksPanel';

/**
 * The "Checks" of an email that is not a template (a campaign's own content, HTML or a block
 * document), for the send and schedule confirmations: the same server checks as the template
 * editor's, shown before sending.
 */
export function ContentChecks({
  projectId,
  subject,
  body,
  document,
  text,
  type,
}: {
  projectId: string;
  subject: string;
  body: string;
  document?: EmailDocument | null;
  text: string | null;
  type: PreviewInput['type'];
}) {
  const content = document ? { editor: 'blocks' as const, document } : { editor: 'html' as const, body };
  const preview = useEmailPreview(projectId, { subject, ...content, text, type, data: {} });
  return <ChecksPanel checks={preview.data?.checks} pending={preview.isFetching} />;
}
