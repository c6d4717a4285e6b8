import { useState } from 'react';
import { ActionIcon, Button, Group, Modal, NavLink, Paper, Stack, Text, TextInput, Title } from '@mantine/core';
import { fieldError } from '../../api/client';
import { useCreateView, useDeleteView, useSavedViews, useUpdateView } from '../../api/hooks/contacts';
import { useTranslation } from 'react-i18next';
import { ErrorState } from '../States';
import type { ListView, SavedView } from './listView';

/**
 * The list's side panel: "All contacts", then the project's saved views (shared with every member).
 * "Save view" names the list as it is now; with a view open, "Update view" writes into it.
 */
export function SavedViews({
  projectId,
  current,
  activeId,
  onOpen,
}: {
  projectId: string;
  current: ListView;
  activeId: string | null;
  onOpen: (view: SavedView | null) => void;
}) {
  const { t } = useTranslation('contacts');
  const views = useSavedViews(projectId);
  const [naming, setNaming] = useState(false);
  const [name, setName] = useState('');
  const body = () => ({ filter: (current.filter as never) ?? null, search: current.search.trim() || null, columns: current.columns });
  const create = useCreateView(projectId, {
    onSuccess: (view) => {
      setNaming(false);
      setName('');
      onOpen(view);
    },
  });
  const update = useUpdateView(projectId);
  const remove = useDeleteView(projectId, {
    onSuccess: (_, id) => {
      if (id === activeId) onOpen(null);
    },
  });
  return (
    <Paper withBorder p="xs" component="nav" aria-label={t('views.label')} w={220} style={{ flexShrink: 0 }}>
      <Stack gap={4}>
        <Title order={2} size="h5" px="xs">
          {t('views.heading')}
        </Title>
        <NavLink component="button" label={t('views.all')} active={activeId === null} onClick={() => onOpen(null)} />
        {(views.data?.data ?? []).map((v) => (
          <Group key={v.id} gap={0} wrap="nowrap">
            <NavLink component="button" label={v.name} active={v.id === activeId} onClick={() => onOpen(v)} style={{ flex: 1 }} />
            <ActionIcon variant="subtle" color="gray" size="sm" aria-label={t('views.deleteView', { name: v.name })} onClick={() => remove.mutate(v.id)}>
              ×
            </ActionIcon>
          </Group>
        ))}
        {views.data && !views.data.data.length ? (
          <Text size="xs" c="dimmed" px="xs">
            {t('views.none')}
          </Text>
        ) : null}
        <Button size="xs" variant="light" mt="xs" onClick={() => setNaming(true)}>
          {t('views.save')}
        </Button>
        {activeId ? (
          <Button size="xs" variant="default" loading={update.isPending} onClick={() => update.mutate({ id: activeId, body: body() })}>
            {t('views.update')}
          </Button>
        ) : null}
        {(views.error ?? update.error ?? remove.error) ? <ErrorState error={views.error ?? update.error ?? remove.error} /> : null}
      </Stack>
      <Modal opened={naming} onClose={() => setNaming(false)} title={t('views.save')} closeButtonProps={{ 'aria-label': t('close') }}>
        <form
          onSubmit={(e) => {
            e.preventDefault();
            create.mutate({ name: name.trim(), ...body() });
          }}
        >
          <Stack>
            <TextInput
              label={t('views.name')}
              value={name}
              onChange={(e) => setName(e.currentTarget.value)}
              error={fieldError(create.error, 'name')}
              data-autofocus
            />
            <Text size="sm" c="dimmed">
              {t('views.what')}
            </Text>
            {create.error && !fieldError(create.error, 'name') ? <ErrorState error={create.error} title={t('notSaved')} /> : null}
            <Group justify="flex-end">
              <Button type="submit" loading={create.isPending} disabled={!name.trim()}>
                {t('save')}
              </Button>
            </Group>
          </Stack>
        </form>
      </Modal>
    </Paper>
  );
}
