import { useState } from 'react';
import { Anchor, Button, Group, Modal, Stack, Text, TextInput } from '@mantine/core';
import { useMutation } from '@tanstack/react-query';
import { fieldError, hasFieldErrors } from '../../api/client';
import { sendTest } from '../../api/emailEditor';
import { useAppConfig, useMe } from '../../api/session';
import { ErrorState } from '../States';

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
  const config = useAppConfig();
  const me = useMe();
  const [opened, setOpened] = useState(false);
  const [to, setTo] = useState('');
  const send = useMutation({
    mutationFn: async () => {
      if (dirty) await save();
      return sendTest(projectId, templateId, { to, data: data ?? {} });
    },
  });
  const open = () => {
    if (!to && me.data?.email) setTo(me.data.email);
    setOpened(true);
  };
  const close = () => {
    setOpened(false);
    send.reset();
  };
  return (
    <>
      <Button variant="default" onClick={open}>
        Send test
      </Button>
      <Modal opened={opened} onClose={close} title="Send a test email">
        <form
          onSubmit={(e) => {
            e.preventDefault();
            send.mutate();
          }}
          noValidate
        >
          <Stack>
            <Text size="sm">
              Sends the draft{dirty ? ' (your changes are saved first)' : ''} with the preview data, which is not stored on the recipient. The recipient becomes
              a contact of the project, as with every send.
            </Text>
            <TextInput
              label="Send to"
              type="email"
              required
              value={to}
              onChange={(e) => setTo(e.currentTarget.value)}
              error={fieldError(send.error, 'to')}
              data-autofocus
            />
            {send.error && !hasFieldErrors(send.error) ? <ErrorState error={send.error} title="Not sent" /> : null}
            {send.data ? (
              <Text size="sm" c="green" role="status">
                Queued for {to}.{' '}
                {config.data?.email.inboxUrl ? (
                  <Anchor href={config.data.email.inboxUrl} target="_blank" rel="noreferrer">
                    Open the development inbox
                  </Anchor>
                ) : null}
              </Text>
            ) : null}
            <Group justify="flex-end">
              <Button variant="default" onClick={close}>
                Close
              </Button>
              <Button type="submit" loading={send.isPending}>
                Send
              </Button>
            </Group>
          </Stack>
        </form>
      </Modal>
    </>
  );
}
