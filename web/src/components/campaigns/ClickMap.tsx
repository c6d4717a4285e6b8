import { useMemo } from 'react';
import { Box, Paper, ScrollArea, Stack, Table, Text, Title } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { previewEmail } from '../../api/emailEditor';
import { annotateLinks, type LinkCounts } from '../../api/clickMap';
import type { Campaign } from '../../api/campaigns';
import { ErrorState, Loading } from '../States';

/** The links' table: the same numbers as the click map, for screen readers and for reading. */
function LinksTable({ links }: { links: LinkCounts[] }) {
  return (
    <ScrollArea>
      <Table aria-label="Links" miw={520}>
        <Table.Thead>
          <Table.Tr>
            <Table.Th>Link</Table.Th>
            <Table.Th ta="right">Clicks</Table.Th>
            <Table.Th ta="right">People</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {links.map((l) => (
            <Table.Tr key={l.url}>
              <Table.Td style={{ wordBreak: 'break-all' }}>{l.url}</Table.Td>
              <Table.Td ta="right">{l.clicks.toLocaleString()}</Table.Td>
              <Table.Td ta="right">{l.uniqueClicks.toLocaleString()}</Table.Td>
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
    queryKey: ['campaign-click-map', projectId, campaign.id, campaign.updatedAt],
    retry: false,
    queryFn: () =>
      previewEmail(
        projectId,
        campaign.document
          ? { subject: campaign.subject, editor: 'blocks', document: campaign.document, text: campaign.text, data: {} }
          : { subject: campaign.subject, editor: 'html', body: campaign.body, text: campaign.text, data: {} },
      ),
  });
  const html = useMemo(() => (preview.data && links ? annotateLinks(preview.data.html, links) : null), [preview.data, links]);
  return (
    <Paper withBorder p="md" role="region" aria-label="Click map">
      <Stack gap="sm">
        <Title order={2} size="h4">
          Click map
        </Title>
        <Text size="sm" c="dimmed">
          Each link of the email with its clicks and the people who clicked it (machines' clicks are not counted).
        </Text>
        {error ? <ErrorState error={error} title="Links not loaded" /> : null}
        {preview.error ? <ErrorState error={preview.error} title="The email did not render" /> : null}
        {html ? (
          <Box
            component="iframe"
            title="Click map"
            sandbox=""
            srcDoc={html}
            referrerPolicy="no-referrer"
            w="100%"
            h={420}
            style={{ border: '1px solid var(--mantine-color-default-border)', borderRadius: 4, background: 'white' }}
          />
        ) : preview.isPending || !links ? (
          <Loading label="Rendering…" />
        ) : null}
        {links?.length ? (
          <LinksTable links={links} />
        ) : links ? (
          <Text size="sm" c="dimmed">
            No link clicked yet (people's clicks on tracked links show here).
          </Text>
        ) : null}
      </Stack>
    </Paper>
  );
}
