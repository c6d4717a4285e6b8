import { useState } from 'react';
import { Anchor, Badge, Button, Group, Select, Table, Text } from '@mantine/core';
import { Link } from 'react-router';
import { useInbound } from '../api/hooks/inbound';
import { useCurrentProject } from '../api/project';
import { ListPage, ListTable } from '../components/ListPage';
import { INBOUND_KINDS, type InboundKind, type InboundSummary } from '../components/inbound/kinds';
import { InboundMessageDialog } from '../components/dialogs/InboundMessageDialog';
import { momentWords } from '../api/dates';
import { useTranslation } from 'react-i18next';

const PAGE = 25;

/** Inbound (docs/inbound.md): the mail the project received, replies and reports, each with the contact it matched; one opens with its headers. */
export default function Inbound() {
  const { t } = useTranslation('mail');
  const { projectId } = useCurrentProject();
  const [kind, setKind] = useState<string>('all');
  // Cursor pagination: the stack holds the cursors of the pages before this one; another kind starts at its first page.
  const [paging, setPaging] = useState<{ kind: string; cursors: (string | undefined)[] }>({ kind, cursors: [undefined] });
  const cursors = paging.kind === kind ? paging.cursors : [undefined];
  const cursor = cursors[cursors.length - 1];
  const [open, setOpen] = useState<InboundSummary | null>(null);
  const list = useInbound(projectId, { kind, cursor, limit: PAGE });
  return (
    <ListPage title={t('inbound.title')} description={t('inbound.description')}>
      <Group align="flex-end">
        <Select
          label={t('inbound.kind')}
          value={kind}
          onChange={(v) => setKind(v ?? 'all')}
          allowDeselect={false}
          data={[
            { value: 'all', label: t('inbound.allKinds') },
            ...(Object.keys(INBOUND_KINDS) as InboundKind[]).map((value) => ({ value, label: t(`inbound.kinds.${value}.label`) })),
          ]}
          w={200}
        />
      </Group>
      <ListTable
        query={list}
        label={t('inbound.table')}
        miw={760}
        head={
          <>
            <Table.Th>{t('inbound.received')}</Table.Th>
            <Table.Th>{t('inbound.kind')}</Table.Th>
            <Table.Th>{t('inbound.from')}</Table.Th>
            <Table.Th>{t('inbound.subject')}</Table.Th>
            <Table.Th>{t('inbound.contact')}</Table.Th>
          </>
        }
        row={(m) => (
          <Table.Tr key={m.id}>
            <Table.Td>{momentWords(m.createdAt)}</Table.Td>
            <Table.Td>
              <Badge variant="light" color={INBOUND_KINDS[m.kind].color}>
                {t(`inbound.kinds.${m.kind}.label`)}
              </Badge>
            </Table.Td>
            <Table.Td>{m.from ?? m.mailFrom ?? '—'}</Table.Td>
            <Table.Td>
              <Anchor component="button" type="button" fz="sm" onClick={() => setOpen(m)}>
                {m.subject || t('inbound.noSubject')}
              </Anchor>
            </Table.Td>
            <Table.Td>
              {m.contactId ? (
                <Anchor component={Link} to={`/p/${projectId}/contacts/${m.contactId}`} fz="sm">
                  {m.contactEmail ?? t('inbound.erasedContact')}
                </Anchor>
              ) : (
                <Text size="sm" c="dimmed">
                  {t('inbound.noneMatched')}
                </Text>
              )}
            </Table.Td>
          </Table.Tr>
        )}
        empty={kind === 'all' ? t('inbound.empty') : t('inbound.emptyKind')}
        footer={(page) =>
          cursors.length > 1 || page.hasMore ? (
            <Group justify="flex-end" p="sm" gap="xs">
              <Button size="xs" variant="default" disabled={cursors.length < 2} onClick={() => setPaging({ kind, cursors: cursors.slice(0, -1) })}>
                {t('previousPage')}
              </Button>
              <Button size="xs" variant="default" disabled={!page.hasMore} onClick={() => setPaging({ kind, cursors: [...cursors, page.cursor ?? undefined] })}>
                {t('nextPage')}
              </Button>
            </Group>
          ) : null
        }
      />
      <InboundMessageDialog projectId={projectId} message={open} onClose={() => setOpen(null)} />
    </ListPage>
  );
}
