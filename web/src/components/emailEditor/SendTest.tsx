import { useState } from 'react';
import { Anchor, Button, Group, Modal, Stack, Text, TextInput } from '@mantine/core';
import { useMutation } from '@tanstack/react-query';
import { api, fieldError, forProject, hasFieldErrors, unwrap } from '../../api/client';
import { useAppConfig, useMe } from '../../api/session';
import { ErrorState } from '../States';

/**
 * "Send test": POST /v1/send of the published template to one address (the signed-in person's at
 * first), with the preview data for this send only (`{ value, persistent: false }`: not stored on the
 * recipient's contact).
 */
export function SendTest({ projectId, templateId, data, unpublished }: { projectId: string; templateId: string; data: Record<string, unknown> | undefined; unpublished: boolean }) {
  const config = useAppConfig();
  const me = useMe();
  const [opened, setOpened] = useState(false);
  const [to, setTo] = useState('');
  const send = useMutation({
    mutationFn: () =>
      unwrap(
        api.POST('/v1/send', {
          body: { to, template: templateId, data: Object.fromEntries(Object.entries(data ?? {}).map(([k, v]) => [k, { value: v, persistent: false }])) as never },
          headers: forProject(projectId),
        }),
      ),
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
              Sends the published template{unpublished ? ' (not your unpublished changes)' : ''} with the preview data, which is not stored on the recipient. The recipient becomes a contact of the project, as with every send.
            </Text>
            <TextInput label="Send to" type="email" required value={to} onChange={(e) => setTo(e.currentTarget.value)} error={fieldError(send.error, 'to')} data-autofocus />
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
