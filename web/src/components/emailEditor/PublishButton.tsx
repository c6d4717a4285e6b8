import { useState } from 'react';
import { Button, Group, Modal, Stack, Text, TextInput } from '@mantine/core';
import { ErrorState } from '../States';

/**
 * "Publish": the draft becomes the version campaigns and workflow steps send, with an optional note
 * for the "Versions" list. `onPublish` saves the draft first, then publishes it.
 */
export function PublishButton({ onPublish, pending, error, published }: { onPublish(note: string): Promise<unknown>; pending: boolean; error: unknown; published: number | null }) {
  const [opened, setOpened] = useState(false);
  const [note, setNote] = useState('');
  return (
    <>
      <Button onClick={() => setOpened(true)}>Publish</Button>
      {published ? (
        <Text size="sm" c="green" role="status">
          Published version {published}.
        </Text>
      ) : null}
      <Modal opened={opened} onClose={() => setOpened(false)} title="Publish this template?">
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
            <Text size="sm">Campaigns and workflow steps send the published version from now on. Earlier versions stay in "Versions".</Text>
            <TextInput label="Note" description="Optional: what changed, for the versions list" value={note} onChange={(e) => setNote(e.currentTarget.value)} data-autofocus />
            {error ? <ErrorState error={error} title="Not published" /> : null}
            <Group justify="flex-end">
              <Button variant="default" onClick={() => setOpened(false)}>
                Cancel
              </Button>
              <Button type="submit" loading={pending}>
                Publish version
              </Button>
            </Group>
          </Stack>
        </form>
      </Modal>
    </>
  );
}
