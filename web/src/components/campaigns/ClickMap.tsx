import { useMemo } from 'react';
import { Box, Paper, Stack, Table, Text, Title } from '@mantine/core';
import { useCampaignLinks, useClickMapPreview } from '../../api/hooks/campaigns';
import { annotateLinks, type LinkCounts } from '../../api/clickMap';
import { ErrorState, Loading } from '../States';
import { ListTable } from '../ListPage';
import { isOne, type Campaign } from '../../api/campaigns';
import { numberWords } from '../../api/dates';
import { useTranslation } from 'react-i18next';

/**
 * "Click map": the campaign's email rendered by the server (POST /templates/preview, without a contact)
 * with each link's clicks and people next to it, in a frame with an empty sandbox; then the table.
 */
export function ClickMap({ projectId, campaign }: { projectId: string; campaign: Campaign }) {
  const { t } = useTranslation('campaigns');
  const preview = useClickMapPreview(projectId, campaign);
  const counts = useCampaignLinks(projectId, campaign);
  const links: LinkCounts[] | undefined = counts.data;
  const html = useMemo(() => {
    if (!preview.data || !links) return null;
    const clicks = (n: number) => t(isOne(n) ? 'clickMap.clickOne' : 'clickMap.clickOther', { n: numberWords(n) });
    const people = (n: number) => t(isOne(n) ? 'clickMap.personOne' : 'clickMap.personOther', { n: numberWords(n) });
    return annotateLinks(preview.data.html, links, (l) => (l ? `${clicks(l.clicks)} · ${people(l.uniqueClicks)}` : clicks(0)));
    // `t` changes with the language: the badges are redrawn in the new one.
  }, [preview.data, links, t]);
  return (
    <Paper withBorder p="md" role="region" aria-label={t('clickMap.title')}>
      <Stack gap="sm">
        <Title order={2} size="h4">
          {t('clickMap.title')}
        </Title>
        <Text size="sm" c="dimmed">
          {t('clickMap.intro')}
        </Text>
        {preview.error ? <ErrorState error={preview.error} title={t('clickMap.notRendered')} /> : null}
        {html ? (
          <Box
            component="iframe"
            title={t('clickMap.title')}
            sandbox=""
            srcDoc={html}
            referrerPolicy="no-referrer"
            w="100%"
            h={420}
            style={{ border: '1px solid var(--mantine-color-default-border)', borderRadius: 4, background: 'white' }}
          />
        ) : preview.isPending ? (
          <Loading label={t('clickMap.rendering')} />
        ) : null}
        {/* The same numbers as the map, for screen readers and for reading. */}
        <ListTable
          query={counts}
          items={(all) => all}
          label={t('clickMap.links')}
          errorTitle={t('clickMap.linksNotLoaded')}
          framed={false}
          striped={false}
          miw={520}
          head={
            <>
              <Table.Th>{t('clickMap.link')}</Table.Th>
              <Table.Th ta="right">{t('clickMap.clicks')}</Table.Th>
              <Table.Th ta="right">{t('clickMap.people')}</Table.Th>
            </>
          }
          row={(l) => (
            <Table.Tr key={l.url}>
              <Table.Td style={{ wordBreak: 'break-all' }}>{l.url}</Table.Td>
              <Table.Td ta="right">{numberWords(l.clicks)}</Table.Td>
              <Table.Td ta="right">{numberWords(l.uniqueClicks)}</Table.Td>
            </Table.Tr>
          )}
          empty={t('clickMap.noClicks')}
        />
      </Stack>
    </Paper>
  );
}
