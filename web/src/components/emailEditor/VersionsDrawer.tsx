import { useState } from 'react';
import { Box, Button, Checkbox, Drawer, SimpleGrid, Stack, Table, Text } from '@mantine/core';
import { useMutation, useQuery } from '@tanstack/react-query';
import { getVersion, listVersions, previewEmail, restoreVersion } from '../../api/emailEditor';
import { ErrorState, Loading } from '../States';
import { momentWords } from '../../api/dates';
import { useTranslation } from 'react-i18next';
import { keys } from '../../api/queryKeys';

/** One version rendered by the server (its stored, compiled HTML), for the side-by-side comparison. */
function VersionPreview({ projectId, templateId, number }: { projectId: string; templateId: string; number: number }) {
  const { t } = useTranslation('editor');
  const rendered = useQuery({
    queryKey: keys.templates.versionPreview(projectId, templateId, number),
    queryFn: async () => {
      const v = await getVersion(projectId, templateId, number);
      return previewEmail(
        projectId,
        v.editor === 'blocks' && v.document
          ? { subject: v.subject, editor: 'blocks', document: v.document }
          : { subject: v.subject, editor: 'html', body: v.body },
      );
    },
  });
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
  const versions = useQuery({ queryKey: keys.templates.versions(projectId, templateId), enabled: opened, queryFn: () => listVersions(projectId, templateId) });
  const restore = useMutation({
    meta: { success: t('versions.restored') },
    mutationFn: (n: number) => restoreVersion(projectId, templateId, n),
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
          {versions.error ? <ErrorState error={versions.error} title={t('versions.failed')} /> : null}
          {restore.error ? <ErrorState error={restore.error} title={t('versions.notRestored')} /> : null}
          {versions.isPending ? <Loading /> : null}
          {versions.data ? (
            <Table aria-label={t('versions.heading')}>
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>{t('versions.compare')}</Table.Th>
                  <Table.Th>{t('versions.version')}</Table.Th>
                  <Table.Th>{t('versions.published')}</Table.Th>
                  <Table.Th>{t('versions.note')}</Table.Th>
                  <Table.Th />
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {versions.data.data.map((v) => (
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
                ))}
              </Table.Tbody>
            </Table>
          ) : null}
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
