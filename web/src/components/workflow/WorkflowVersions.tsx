import { useState } from 'react';
import { Badge, Button, Drawer, Stack, Table, Text } from '@mantine/core';
import { useMutation } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client';
import { useWorkflowVersions } from '../../api/hooks/workflows';
import { ErrorState } from '../States';
import { ListTable } from '../ListPage';
import { momentWords } from '../../api/dates';
import { useTranslation } from 'react-i18next';

/**
 * "Versions" of a workflow (docs/workflows.md "Versions"): while enabled, every change to what it runs
 * is a numbered version. The badge names the version new executions start on (the one the numbers on
 * the canvas count); the drawer lists them (who, when, what changed) with "Restore".
 */
export function WorkflowVersions({
  projectId,
  workflowId,
  enabled,
  onRestored,
}: {
  projectId: string;
  workflowId: string;
  enabled: boolean;
  onRestored(): void;
}) {
  const { t } = useTranslation('workflows');
  const [opened, setOpened] = useState(false);
  // Under the workflow's own key: any change to it (an edit, Enable) refreshes the badge too.
  const versions = useWorkflowVersions(projectId, workflowId, enabled);
  const restore = useMutation({
    meta: { success: t('versions.restored') },
    mutationFn: (number: number) => unwrap(api.POST('/workflows/{id}/versions/{number}/restore', { params: { path: { id: workflowId, number } } })),
    onSuccess: () => {
      setOpened(false);
      onRestored();
      void versions.refetch();
    },
  });
  const current = versions.data?.data.find((v) => v.current);
  return (
    <>
      {current ? (
        <Badge variant="light" data-testid="workflow-version">
          {t('versions.version', { number: current.number })}
        </Badge>
      ) : null}
      <Button variant="default" onClick={() => setOpened(true)}>
        {t('versions.versions')}
      </Button>
      <Drawer
        opened={opened}
        onClose={() => setOpened(false)}
        title={t('versions.versions')}
        position="right"
        size="lg"
        closeButtonProps={{ 'aria-label': t('versions.close') }}
      >
        <Stack>
          <Text size="sm" c="dimmed">
            {t('versions.intro')}
          </Text>
          {restore.error ? <ErrorState error={restore.error} title={t('versions.notRestored')} /> : null}
          <ListTable
            query={versions}
            label={t('versions.versions')}
            errorTitle={t('versions.notLoaded')}
            head={
              <>
                <Table.Th>{t('versions.number')}</Table.Th>
                <Table.Th>{t('versions.changed')}</Table.Th>
                <Table.Th>{t('versions.whatChanged')}</Table.Th>
                <Table.Th />
              </>
            }
            row={(v) => (
              <Table.Tr key={v.number}>
                <Table.Td>
                  {v.number} {v.current ? <Badge size="xs">{t('versions.current')}</Badge> : null}
                </Table.Td>
                <Table.Td>
                  <Text size="sm">{momentWords(v.createdAt)}</Text>
                  <Text size="xs" c="dimmed">
                    {v.createdBy ?? t('versions.unknown')}
                  </Text>
                </Table.Td>
                <Table.Td>
                  <Text size="sm">{v.note}</Text>
                </Table.Td>
                <Table.Td>
                  {v.current ? null : (
                    <Button
                      size="xs"
                      variant="light"
                      onClick={() => restore.mutate(v.number)}
                      loading={restore.isPending && restore.variables === v.number}
                      aria-label={t('versions.restoreNumber', { number: v.number })}
                    >
                      {t('versions.restore')}
                    </Button>
                  )}
                </Table.Td>
              </Table.Tr>
            )}
            empty={t('versions.none')}
          />
        </Stack>
      </Drawer>
    </>
  );
}
