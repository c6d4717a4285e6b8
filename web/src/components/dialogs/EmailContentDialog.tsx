import { Modal, Text } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { useEmailContent } from '../../api/hooks/emails';
import { ErrorState, Loading } from '../States';
import { RenderedEmail } from '../EmailPreview';

/**
 * One email as its recipient got it (GET /emails/:id/content, without the open pixel: reading it
 * here is not an open), in the same sandboxed frame as the editors' preview.
 */
export function EmailContentDialog({ projectId, emailId, onClose }: { projectId: string; emailId: string | null; onClose: () => void }) {
  const { t } = useTranslation('contacts');
  const content = useEmailContent(projectId, emailId);
  const c = content.data;
  return (
    <Modal opened={!!emailId} onClose={onClose} title={t('content.title')} size="xl" closeButtonProps={{ 'aria-label': t('close') }}>
      {content.isPending ? <Loading /> : null}
      {content.error ? <ErrorState error={content.error} title={t('notLoaded')} /> : null}
      {c?.gone ? <Text>{t('content.gone')}</Text> : null}
      {c && !c.gone && c.html === null ? <Text>{t('content.notRendered')}</Text> : null}
      {c && !c.gone && c.html !== null ? <RenderedEmail rendered={{ subject: c.subject ?? '', html: c.html }} height={480} /> : null}
    </Modal>
  );
}
