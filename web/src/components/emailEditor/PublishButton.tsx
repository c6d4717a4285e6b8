import { useState } from 'react';
import { Button, Group, Modal, Stack, Text, TextInput } from '@mantine/core';
import { ErrorState } from '../States';
import { useTranslation } from 'react-i18next';

/**
 * "Publish": the draft becomes the version campaigns and workflow steps send, with an optional note
 * for the "Versions" list. `onPublish` saves the draft first, then publishes it.
 */
export function PublishButton({
  onPublish,
  pending,
  error,
  published,
}: {
  onPublish(note: string): Promise<unknown>;
  pending: boolean;
  error: unknown;
  published: number | null;
}) {
  const { t } = useTranslation('editor');
  const [opened, setOpened] = useState(false);
  const [note, setNote] = useState('');
  return (
    <>
      <Button onClick={() => setOpened(true)}>{t('publish.button')}</Button>
      {published ? (
        <Text size="sm" c="green" role="status">
          {t('publish.published', { number: published })}
        </Text>
      ) : null}
      <Modal opened={opened} onClose={() => setOpened(false)} title={t('publish.heading')}>
        <form
          onSubmit={(e) => {
            e.preventDefault();
            void onPublish(note).then(
              () => {
                setOpened(false);
                setNote('');
              },
              () => undefined,
            );
          }}
        >
          <Stack>
            <Text size="sm">{t('publish.intro')}</Text>
            <TextInput
              label={t('publish.note')}
              description={t('publish.noteHint')}
              value={note}
              onChange={(e) => setNote(e.currentTarget.value)}
              data-autofocus
            />
            {error ? <ErrorState error={error} title={t('publish.failed')} /> : null}
            <Group justify="flex-end">
              <Button variant="default" onClick={() => setOpened(false)}>
                {t('cancel')}
              </Button>
              <Button type="submit" loading={pending}>
                {t('publish.submit')}
              </Button>
            </Group>
          </Stack>
        </form>
      </Modal>
    </>
  );
}
