import { Button, Group, Text } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { MutationCache } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { i18n } from '../i18n';

/**
 * Toasts: one way for every action to say it worked or why it did not. Mutations say it through their
 * `meta` (the QueryClient's MutationCache below), actions written as plain async functions call
 * `notifySuccess` / `notifyFailure` themselves.
 */

export interface ToastMeta extends Record<string, unknown> {
  /** The success toast's sentence ("Topic saved"); none: the screen itself shows the outcome. */
  success?: string | ((data: unknown, variables: unknown) => string);
  /** The failure toast's title, or false where the screen shows the failure itself and a toast would repeat it. */
  failure?: string | false;
}

declare module '@tanstack/react-query' {
  interface Register {
    mutationMeta: ToastMeta;
  }
}

/**
 * Undo is the one part of a toast that takes clicks (its body lets them through to the page, main.tsx). Toasts
 * close by themselves and carry no close button: a button in the corner would sit over the page's own
 * buttons there for seconds after every action.
 */
const clickable = { pointerEvents: 'auto' } as const;

export function notifySuccess(message: string, opts: { undo?: { label?: string; run: () => Promise<string> } } = {}) {
  const id = notifications.show({
    color: 'teal',
    message: opts.undo ? <UndoMessage message={message} label={opts.undo.label} onUndo={() => undo(id, opts.undo!.run)} /> : message,
    // An Undo needs time to be read and reached; a plain confirmation goes soon.
    autoClose: opts.undo ? 10_000 : 4_000,
    withCloseButton: false,
  });
  return id;
}

/** A failure in the API's own words: the field sentences of a 422, never "Request validation failed" (api/fieldErrors.ts). */
export function notifyFailure(error: unknown, title = i18n.t('common:didNotWork')) {
  notifications.show({
    color: 'red',
    title,
    message: error instanceof Error ? error.message : String(error),
    autoClose: 8_000,
    withCloseButton: false,
  });
}

async function undo(id: string, run: () => Promise<string>) {
  notifications.hide(id);
  try {
    notifySuccess(await run());
  } catch (err) {
    notifyFailure(err, i18n.t('common:notUndone'));
  }
}

function UndoMessage({ message, label, onUndo }: { message: string; label?: string; onUndo: () => void }) {
  const { t } = useTranslation('common');
  return (
    <Group justify="space-between" wrap="nowrap" gap="sm">
      <Text size="sm">{message}</Text>
      <Button size="compact-sm" variant="light" onClick={onUndo} style={{ ...clickable, flexShrink: 0 }}>
        {label ?? t('undo')}
      </Button>
    </Group>
  );
}

/** The QueryClient's mutation cache: a toast after every mutation, in the words its `meta` gives. */
export function toastingMutationCache() {
  return new MutationCache({
    onSuccess: (data, variables, _context, mutation) => {
      const success = mutation.meta?.success;
      if (success) notifySuccess(typeof success === 'function' ? success(data, variables) : success);
    },
    onError: (error, _variables, _context, mutation) => {
      const failure = mutation.meta?.failure;
      if (failure !== false) notifyFailure(error, failure ?? undefined);
    },
  });
}
