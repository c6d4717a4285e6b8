import { Fragment, useState } from 'react';
import { Badge, Button, Code, Group, Paper, ScrollArea, Table, Text, Title } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import type { ResponseOf } from '../api/client';
import { useContactEmails, useEmail } from '../api/hooks/contacts';
import { Empty, ErrorState, Loading } from './States';
import { momentWords } from '../api/dates';

type Email = ResponseOf<'/emails', 'get'>['data'][number];

export const EMAIL_STATUS_COLOR: Record<Email['status'], string> = {
  SCHEDULED: 'violet',
  CANCELLED: 'gray',
  QUEUED: 'gray',
  SENDING: 'gray',
  SENT: 'blue',
  DELIVERED: 'teal',
  OPENED: 'green',
  CLICKED: 'green',
  BOUNCED: 'red',
  COMPLAINED: 'red',
  FAILED: 'red',
  SUPPRESSED: 'orange',
};

/** One email's story (GET /emails/:id): its lifecycle events, oldest first. */
function Story({ projectId, emailId }: { projectId: string; emailId: string }) {
  const { t } = useTranslation('contacts');
  const email = useEmail(projectId, emailId);
  if (email.isPending) return <Loading />;
  if (email.error) return <ErrorState error={email.error} />;
  if (!email.data.events.length)
    return (
      <Text size="sm" c="dimmed">
        {t('emails.nothingYet')}
      </Text>
    );
  return (
    <Table aria-label={t('emails.events')} fz="xs">
      <Table.Tbody>
        {email.data.events.map((e, i) => (
          <Table.Tr key={i}>
            <Table.Td w={180}>{momentWords(e.at)}</Table.Td>
            <Table.Td>{t(`emailStep.${e.type}`)}</Table.Td>
            <Table.Td>{Object.keys(e.data ?? {}).length ? <Code>{JSON.stringify(e.data)}</Code> : null}</Table.Td>
          </Table.Tr>
        ))}
      </Table.Tbody>
    </Table>
  );
}

/** The emails sent to a contact (GET /emails?contactId=), newest first, by cursor; a row opens its story. */
export function ContactEmails({ projectId, contactId }: { projectId: string; contactId: string }) {
  const { t } = useTranslation('contacts');
  const [cursors, setCursors] = useState<(string | undefined)[]>([undefined]);
  const [open, setOpen] = useState<string | null>(null);
  const cursor = cursors[cursors.length - 1];
  const page = useContactEmails(projectId, contactId, cursor);
  return (
    <Paper withBorder p="md">
      <Title order={2} size="h4" mb="sm">
        {t('emails.heading')}
      </Title>
      {page.isPending ? <Loading /> : null}
      {page.error ? <ErrorState error={page.error} /> : null}
      {page.data && !page.data.data.length ? <Empty>{t('emails.none')}</Empty> : null}
      {page.data?.data.length ? (
        <ScrollArea>
          <Table aria-label={t('emails.table')} miw={560}>
            <Table.Thead>
              <Table.Tr>
                <Table.Th>{t('emails.subject')}</Table.Th>
                <Table.Th>{t('emails.type')}</Table.Th>
                <Table.Th>{t('emails.status')}</Table.Th>
                <Table.Th>{t('emails.created')}</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {page.data.data.map((e) => (
                <Fragment key={e.id}>
                  <Table.Tr>
                    <Table.Td>
                      <Button
                        variant="subtle"
                        size="compact-sm"
                        onClick={() => setOpen(open === e.id ? null : e.id)}
                        aria-expanded={open === e.id}
                        styles={{ label: { whiteSpace: 'normal', textAlign: 'left' } }}
                      >
                        {e.subject || t('noSubject')}
                      </Button>
                    </Table.Td>
                    <Table.Td>{t(`emailType.${e.type}`)}</Table.Td>
                    <Table.Td>
                      <Badge color={EMAIL_STATUS_COLOR[e.status]} variant="light">
                        {t(`emailStatus.${e.status}`)}
                      </Badge>
                    </Table.Td>
                    <Table.Td>{momentWords(e.createdAt)}</Table.Td>
                  </Table.Tr>
                  {open === e.id ? (
                    <Table.Tr>
                      <Table.Td colSpan={4}>
                        <Story projectId={projectId} emailId={e.id} />
                      </Table.Td>
                    </Table.Tr>
                  ) : null}
                </Fragment>
              ))}
            </Table.Tbody>
          </Table>
        </ScrollArea>
      ) : null}
      {page.data && (cursors.length > 1 || page.data.hasMore) ? (
        <Group gap="xs" justify="flex-end" mt="xs">
          <Button size="xs" variant="default" disabled={cursors.length < 2} onClick={() => setCursors((c) => c.slice(0, -1))}>
            {t('emails.newer')}
          </Button>
          <Button size="xs" variant="default" disabled={!page.data.hasMore} onClick={() => setCursors((c) => [...c, page.data!.cursor ?? undefined])}>
            {t('emails.older')}
          </Button>
        </Group>
      ) : null}
    </Paper>
  );
}
