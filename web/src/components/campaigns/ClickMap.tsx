import { useMemo } from 'react';
import { Box, Paper, ScrollArea, Stack, Table, Text, Title } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { previewEmail } from '../../api/emailEditor';
import { annotateLinks, type LinkCounts } from '../../api/clickMap';
import { ErrorState, Loading } from '../States';
import { isOne, type Campaign } from '../../api/campaigns';
import { numberWords } from '../../api/dates';
import { useTranslation } from 'react-i18next';
import { keys } from '../../api/queryKeys';

/** The links' table: the same numbers as the click map, for screen readers and for reading. */
function LinksTable({ links }: { links: LinkCounts[] }) {
  const { t } = useTranslation('campaigns');
  return (
    <ScrollArea>
      <Table aria-label={t('clickMap.links')} miw={520}>
        <Table.Thead>
          <Table.Tr>
            <Table.Th>{t('clickMap.link')}</Table.Th>
            <Table.Th ta="right">{t('clickMap.clicks')}</Table.Th>
            <Table.Th ta="right">{t('clickMap.people')}</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {links.map((l) => (
            <Table.Tr key={l.url}>
              <Table.Td style={{ wordBreak: 'break-all' }}>{l.url}</Table.Td>
              <Table.Td ta="right">{numberWords(l.clicks)}</Table.Td>
              <Table.Td ta="right">{numberWords(l.uniqueClicks)}</Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </ScrollArea>
  );
}

/**
 * "Click map": the campaign's email rendered by the server (POST /templates/preview, without a contact)
 * with each link's clicks and people next to it, in a frame with an empty sandbox; then the table.
 */
export function ClickMap({ projectId, campaign, links, error }: { projectId: string; campaign: Campaign; links: LinkCounts[] | undefined; error: unknown }) {
  const preview = useQuery({
    queryKey: keys.campaigns.clickMap(projectId, campaign.id, campaign.updatedAt),
    retry: false,
    queryFn: () =>
      previewEmail(
        projectId,
        campaign.document
          ? { subject: campaign.subject, editor: 'blocks', document: campaign.document, text: campaign.text, data: {} }
          : { subject: campaign.subject, editor: 'html', body: campaign.body, text: campaign.text, data: {} },
      ),
  });
  const { t } = useTranslation('campaigns');
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
        {error ? <ErrorState error={error} title={t('clickMap.linksNotLoaded')} /> : null}
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
        ) : preview.isPending || !links ? (
          <Loading label={t('clickMap.rendering')} />
        ) : null}
        {links?.length ? (
          <LinksTable links={links} />
        ) : links ? (
          <Text size="sm" c="dimmed">
            {t('clickMap.noClicks')}
          </Text>
        ) : null}
      </Stack>
    </Paper>
  );
}
