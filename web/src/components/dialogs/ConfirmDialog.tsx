import { Button, Group, Modal, Stack, Text, type ButtonProps } from '@mantine/core';
import type { ReactNode } from 'react';
import { ErrorState } from '../States';
import { useTranslation } from 'react-i18next';

export interface ConfirmProps {
  /** What confirming does, said plainly. */
  message: ReactNode;
  /** The confirming button's words (e.g. "Delete topic"). */
  confirmLabel: string;
  /** `red` for what cannot be undone; unset: the primary color. */
  confirmColor?: ButtonProps['color'];
  loading?: boolean;
  onConfirm: () => void;
  onCancel: () => void;
  /** The failed attempt's error, shown above the buttons (the API's message). */
  error?: unknown;
  /** The error's title; unset: ErrorState's own. */
  errorTitle?: string;
}

/** A confirmation's content: the message, the last attempt's error, then Cancel and the confirming button. */
export function ConfirmBody({ message, confirmLabel, confirmColor, loading, onConfirm, onCancel, error, errorTitle }: ConfirmProps) {
  const { t } = useTranslation('common');
  return (
    <Stack>
      <Text>{message}</Text>
      {error ? <ErrorState error={error} title={errorTitle} /> : null}
      <Group justify="flex-end">
        <Button variant="default" onClick={onCancel}>
          {t('cancel')}
        </Button>
        <Button color={confirmColor} loading={loading} onClick={onConfirm}>
          {confirmLabel}
        </Button>
      </Group>
    </Stack>
  );
}

/** A dialog that asks before an action (Mantine's Modal around ConfirmBody); closing it cancels. */
export function ConfirmDialog({ opened, title, ...body }: ConfirmProps & { opened: boolean; title: string }) {
  const { t } = useTranslation('common');
  return (
    <Modal opened={opened} onClose={body.onCancel} title={title} closeButtonProps={{ 'aria-label': t('close') }}>
      <ConfirmBody {...body} />
    </Modal>
  );
}
