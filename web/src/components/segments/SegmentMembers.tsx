import { useState } from 'react';
import { Alert, Anchor, Badge, Button, Checkbox, Group, Paper, Stack, Table, Text, Textarea, Title } from '@mantine/core';
import { Link } from 'react-router';
import { ApiError, type ResponseOf } from '../../api/client';
import { useAddSegmentMembers, useRemoveSegmentMembers, useSegmentMembers } from '../../api/hooks/segments';
import { CountAndPages, ListTable } from '../ListPage';
import { ErrorState } from '../States';
import { momentWords, numberWords } from '../../api/dates';
import { useCountWords } from '../CountText';
import { useTranslation } from 'react-i18next';

export type Segment = ResponseOf<'/segments/{id}', 'get'>;
export const PAGE_SIZE = 20;

/** "a@x.test, b@x.test\nc@x.test" → the addresses, once each. */
export const parseAddresses = (text: string) => [
  ...new Set(
    text
      .split(/[\s,;]+/)
      .map((s) => s.trim())
      .filter(Boolean),
  ),
];

/** The segment's members, a page at a time, with how many there are now. */
export function Members({ projectId, segment }: { projectId: string; segment: Segment }) {
  const { t } = useTranslation('data');
  const [page, setPage] = useState(1);
  const members = useSegmentMembers(projectId, segment.id, { page, pageSize: PAGE_SIZE });
  const countWords = useCountWords();
  return (
    <Stack gap="sm" component="section" aria-label={t('members.title')}>
      <Title order={2} size="h4">
        {t('members.title')}
      </Title>
      <ListTable
        query={members}
        label={t('members.table')}
        miw={520}
        head={
          <>
            <Table.Th>{t('members.email')}</Table.Th>
            <Table.Th>{t('members.subscribed')}</Table.Th>
            <Table.Th>{t('members.created')}</Table.Th>
          </>
        }
        row={(c) => (
          <Table.Tr key={c.id}>
            <Table.Td>
              <Anchor component={Link} to={`/p/${projectId}/contacts/${c.id}`}>
                {c.email}
              </Anchor>
            </Table.Td>
            <Table.Td>
              <Badge variant="light" color={c.subscribed ? 'green' : 'gray'}>
                {c.subscribed ? t('members.subscribed') : t('members.unsubscribed')}
              </Badge>
            </Table.Td>
            <Table.Td>{momentWords(c.createdAt)}</Table.Td>
          </Table.Tr>
        )}
        empty={segment.type === 'STATIC' ? t('members.emptyStatic') : t('members.emptyDynamic')}
        footer={(d) => (
          <CountAndPages
            count={t('members.now', { count: d.total, n: countWords(d.total, d.estimated) })}
            countTestId="members-total"
            page={page}
            totalPages={Math.max(1, Math.ceil(d.total / PAGE_SIZE))}
            onPage={setPage}
            pagesLabel={t('members.pages')}
          />
        )}
      />
    </Stack>
  );
}

/** POST / DELETE /segments/:id/members with pasted addresses (STATIC segments). */
export function StaticMembers({ projectId, segment }: { projectId: string; segment: Segment }) {
  const { t } = useTranslation('data');
  const [text, setText] = useState('');
  const [createMissing, setCreateMissing] = useState(false);
  const [result, setResult] = useState<string | null>(null);
  const emails = parseAddresses(text);
  const done = (action: 'added' | 'removed', count: number, notFound: string[]) => {
    const words = { count, n: numberWords(count), missing: notFound.join(', ') };
    setResult(
      action === 'added'
        ? t(notFound.length ? 'members.addedMissing' : 'members.added', words)
        : t(notFound.length ? 'members.removedMissing' : 'members.removed', words),
    );
    setText('');
  };
  const add = useAddSegmentMembers(projectId, segment.id, {
    meta: { success: t('members.addedToast') },
    onSuccess: (r) => done('added', r.added, r.notFound),
  });
  const remove = useRemoveSegmentMembers(projectId, segment.id, {
    meta: { success: t('members.removedToast') },
    onSuccess: (r) => done('removed', r.removed, r.notFound),
  });
  const error = add.error ?? remove.error;
  return (
    <Paper withBorder p="md" component="section" aria-label={t('members.edit')}>
      <Stack gap="sm">
        <Title order={2} size="h4">
          {t('members.edit')}
        </Title>
        <Textarea
          label={t('members.addresses')}
          description={t('members.addressesHint')}
          autosize
          minRows={3}
          maxRows={10}
          value={text}
          onChange={(e) => setText(e.currentTarget.value)}
          error={error instanceof ApiError ? error.message : undefined}
        />
        <Checkbox label={t('members.createMissing')} checked={createMissing} onChange={(e) => setCreateMissing(e.currentTarget.checked)} />
        <Group>
          <Button
            onClick={() => {
              setResult(null);
              add.mutate({ emails, createMissing });
            }}
            loading={add.isPending}
            disabled={!emails.length}
          >
            {t('members.add')}
          </Button>
          <Button
            variant="default"
            onClick={() => {
              setResult(null);
              remove.mutate({ emails });
            }}
            loading={remove.isPending}
            disabled={!emails.length}
          >
            {t('members.remove')}
          </Button>
          <Text size="sm" c="dimmed">
            {t('members.addressCount', { count: emails.length, n: numberWords(emails.length) })}
          </Text>
        </Group>
        {result ? (
          <Alert color="green" role="status" p="xs">
            {result}
          </Alert>
        ) : null}
        {error && !(error instanceof ApiError) ? <ErrorState error={error} /> : null}
      </Stack>
    </Paper>
  );
}
