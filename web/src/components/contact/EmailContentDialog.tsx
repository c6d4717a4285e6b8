import { Modal, Text } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client';
import { ErrorState, Loading } from '../States';
import { RenderedEmail } from '../EmailPreview';

/**
 * One email as its recipient got it (GET /emails/:id/content, without the open pixel: reading it
 * here is not an open), in the same sandboxed frame as the editors' preview.
 */
export function EmailContentDialog({ projectId, emailId, onClose }: { projectId: string; emailId: string | null; onClose: () => void }) {
  const content = useQuery({
    queryKey: ['email-content', projectId, emailId],
    enabled: !!emailId,
    queryFn: () => unwrap(api.GET('/emails/{id}/content', { params: { path: { id: emailId! } } })),
  });
  const c = content.data;
  return (
    <Modal opened={!!emailId} onClose={onClose} title="The email as it was sent" size="xl">
      {content.isPending ? <Loading /> : null}
      {content.error ? <ErrorState error={content.error} title="Not loaded" /> : null}
      {c?.gone ? <Text>Its content has been removed (retention or erasure).</Text> : null}
      {c && !c.gone && c.html === null ? <Text>It has not been rendered yet: it is still waiting to be sent.</Text> : null}
      {c && !c.gone && c.html !== null ? <RenderedEmail rendered={{ subject: c.subject ?? '', html: c.html }} height={480} /> : null}
    </Modal>
  );
}
