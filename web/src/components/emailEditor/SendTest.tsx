import { sendTest } from '../../api/emailEditor';
import { SendTestButton } from '../SendTestButton';

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
  return (
    <SendTestButton
      intro={`Sends the draft${dirty ? ' (your changes are saved first)' : ''} with the preview data, which is not stored on the recipient. The recipient becomes a contact of the project, as with every send.`}
      toField="to"
      doneText={(to) => `Queued for ${to}.`}
      send={async (to) => {
        if (dirty) await save();
        return sendTest(projectId, templateId, { to, data: data ?? {} });
      }}
    />
  );
}
