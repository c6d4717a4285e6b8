import { type ReactNode, useState } from 'react';
import { Anchor, Button, Group, Modal, Stack, Text, TextInput } from '@mantine/core';
import { useMutation } from '@tanstack/react-query';
import { fieldError, hasFieldErrors } from '../api/client';
import { useAppConfig, useMe } from '../api/session';
import { ErrorState } from './States';
import { useTranslation } from 'react-i18next';

/**
 * "Send test": a dialog asking where one test email goes (the signed-in person's address at first),
 * for the email editor and the campaign composer alike. `send` saves what it must and sends; its
 * answer's words say what happened.
 */
export function SendTestButton({
  intro,
  send: sendTo,
  toField,
  doneText,
  disabled,
  prefillMine = true,
}: {
  /** What sending does, said plainly. */
  intro: ReactNode;
  send(to: string): Promise<unknown>;
  /** The request field the address goes in, for its error under the input. */
  toField: string;
  doneText(to: string, answer: unknown): string;
  disabled?: boolean;
  /** Start from the signed-in person's address (the editor); false: an empty field (the composer). */
  prefillMine?: boolean;
}) {
  const { t } = useTranslation('campaigns');
  const config = useAppConfig();
  const me = useMe();
  const [opened, setOpened] = useState(false);
  const [to, setTo] = useState('');
  const send = useMutation({ meta: { success: t('sendTest.sent') }, mutationFn: () => sendTo(to) });
  const open = () => {
    if (prefillMine && !to && me.data?.email) setTo(me.data.email);
    setOpened(true);
  };
  const close = () => {
    setOpened(false);
    send.reset();
  };
  return (
    <>
      <Button variant="default" onClick={open} disabled={disabled}>
        {t('sendTest.button')}
      </Button>
      <Modal opened={opened} onClose={close} title={t('sendTest.title')}>
        <form
          onSubmit={(e) => {
            e.preventDefault();
            send.mutate();
          }}
          noValidate
        >
          <Stack>
            <Text size="sm">{intro}</Text>
            <TextInput
              label={t('sendTest.to')}
              type="email"
              required
              value={to}
              onChange={(e) => setTo(e.currentTarget.value)}
              error={fieldError(send.error, toField)}
              data-autofocus
            />
            {send.error && !hasFieldErrors(send.error) ? <ErrorState error={send.error} title={t('sendTest.notSent')} /> : null}
            {send.isSuccess ? (
              <Text size="sm" c="green" role="status">
                {doneText(to, send.data)}{' '}
                {config.data?.email.inboxUrl ? (
                  <Anchor href={config.data.email.inboxUrl} target="_blank" rel="noreferrer">
                    {t('sendTest.inbox')}
                  </Anchor>
                ) : null}
              </Text>
            ) : null}
            <Group justify="flex-end">
              <Button variant="default" onClick={close}>
                {t('sendTest.close')}
              </Button>
              <Button type="submit" loading={send.isPending}>
                {t('sendTest.send')}
              </Button>
            </Group>
          </Stack>
        </form>
      </Modal>
    </>
  );
}
