import { sendTest } from '../../api/emailEditor';
import { SendTestButton } from '../SendTestButton';
import { useTranslation } from 'react-i18next';

/**
 * "Send test": POST /templates/:id/test of the draft to one address (the signed-in person's at first),
 * saving unsaved changes first so the test is what the editor shows, with the preview data for this
 * send only (not stored on the recipient's contact).
 */
export function SendTest({
  projectId,
  templateId,
  data,
  dirty,
  save,
}: {
  projectId: string;
  templateId: string;
  data: Record<string, unknown> | undefined;
  dirty: boolean;
  save(): Promise<unknown>;
}) {
  const { t } = useTranslation('editor');
  return (
    <SendTestButton
      intro={dirty ? t('sendTest.introDirty') : t('sendTest.intro')}
      toField="to"
      doneText={(to) => t('sendTest.queued', { to })}
      send={async (to) => {
        if (dirty) await save();
        return sendTest(projectId, templateId, { to, data: data ?? {} });
      }}
    />
  );
}
