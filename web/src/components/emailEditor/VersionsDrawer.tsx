import { useState } from 'react';
import { Box, Button, Checkbox, Drawer, SimpleGrid, Stack, Table, Text } from '@mantine/core';
import { useMutation } from '@tanstack/react-query';
import { restoreVersion } from '../../api/emailEditor';
import { useTemplateVersions, useVersionPreview } from '../../api/hooks/templates';
import { ErrorState, Loading } from '../States';
import { ListTable } from '../ListPage';
import { momentWords } from '../../api/dates';
import { useTranslation } from 'react-i18next';

/** One version rendered by the server (its stored, compiled HTML), for the side-by-side comparison. */
function VersionPreview({ projectId, templateId, number }: { projectId: string; templateId: string; number: number }) {
  const { t } = useTranslation('editor');
  const rendered = useVersionPreview(projectId, templateId, number);
  return (
    <Stack gap={4}>
      <Text size="sm" fw={600}>
        {rendered.data ? t('versions.versionSubject', { number, subject: rendered.data.subject }) : t('versions.versionNumber', { number })}
      </Text>
      {rendered.error ? <ErrorState error={rendered.error} title={t('versions.notRendered')} /> : null}
      {rendered.data ? (
        <Box
          component="iframe"
          title={t('versions.versionNumber', { number })}
          sandbox=""
          srcDoc={rendered.data.html}
          h={480}
          w="100%"
          style={{ border: '1px solid var(--mantine-color-default-border)', background: 'white' }}
        />
      ) : rendered.isPending ? (
        <Loading />
      ) : null}
    </Stack>
  );
}

/**
 * "Versions": every published version (number, who, when, note), newest first. "Restore" copies one
 * to the draft (publishing stays a separate step); ticking two shows them side by side.
 */
export function VersionsDrawer({ projectId, templateId, onRestored }: { projectId: string; templateId: string; onRestored(): void }) {
  const { t } = useTranslation('editor');
  const [opened, setOpened] = useState(false);
  const [compared, setCompared] = useState<number[]>([]);
  const versions = useTemplateVersions(projectId, templateId, opened);
  const restore = useMutation({
    meta: { success: t('versions.restored') },
    mutationFn: (n: number) => restoreVersion(templateId, n),
    onSuccess: () => {
      setOpened(false);
      onRestored();
    },
  });
  const toggle = (n: number) => setCompared((c) => (c.includes(n) ? c.filter((x) => x !== n) : [...c, n].slice(-2)));
  return (
    <>
      <Button variant="default" onClick={() => setOpened(true)}>
        {t('versions.button')}
      </Button>
      <Drawer opened={opened} onClose={() => setOpened(false)} title={t('versions.heading')} position="right" size={compared.length === 2 ? 'xl' : 'md'}>
        <Stack>
          {restore.error ? <ErrorState error={restore.error} title={t('versions.notRestored')} /> : null}
          <ListTable
            query={versions}
            label={t('versions.heading')}
            errorTitle={t('versions.failed')}
            framed={false}
            striped={false}
            head={
              <>
                <Table.Th>{t('versions.compare')}</Table.Th>
                <Table.Th>{t('versions.version')}</Table.Th>
                <Table.Th>{t('versions.published')}</Table.Th>
                <Table.Th>{t('versions.note')}</Table.Th>
                <Table.Th />
              </>
            }
            row={(v) => (
              <Table.Tr key={v.number}>
                <Table.Td>
                  <Checkbox
                    aria-label={t('versions.compareVersion', { number: v.number })}
                    checked={compared.includes(v.number)}
                    onChange={() => toggle(v.number)}
                  />
                </Table.Td>
                <Table.Td>{v.number}</Table.Td>
                <Table.Td>
                  <Text size="sm">{momentWords(v.createdAt)}</Text>
                  <Text size="xs" c="dimmed">
                    {v.createdBy ? (v.createdBy.name ?? v.createdBy.email) : t('versions.api')}
                  </Text>
                </Table.Td>
                <Table.Td>{v.note ?? ''}</Table.Td>
                <Table.Td>
                  <Button
                    size="compact-xs"
                    variant="light"
                    loading={restore.isPending && restore.variables === v.number}
                    onClick={() => restore.mutate(v.number)}
                    aria-label={t('versions.restoreVersion', { number: v.number })}
                  >
                    {t('versions.restore')}
                  </Button>
                </Table.Td>
              </Table.Tr>
            )}
            empty={t('versions.none')}
          />
          {compared.length === 2 ? (
            <SimpleGrid cols={2}>
              {[...compared]
                .sort((a, b) => a - b)
                .map((n) => (
                  <VersionPreview key={n} projectId={projectId} templateId={templateId} number={n} />
                ))}
            </SimpleGrid>
          ) : (
            <Text size="sm" c="dimmed">
              {t('versions.tickTwo')}
            </Text>
          )}
        </Stack>
      </Drawer>
    </>
  );
}
