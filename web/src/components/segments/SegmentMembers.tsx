import { useState } from 'react';
import { Alert, Anchor, Badge, Button, Checkbox, Group, Pagination, Paper, ScrollArea, Stack, Table, Text, Textarea, Title } from '@mantine/core';
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link } from 'react-router';
import { api, ApiError, ResponseOf, unwrap } from '../../api/client';
import { keys } from '../../api/queryKeys';
import { Empty, ErrorState, Loading } from '../States';
import { momentWords, numberWords } from '../../api/dates';
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

export function Members({ projectId, segment }: { projectId: string; segment: Segment }) {
  const { t } = useTranslation('data');
  const [page, setPage] = useState(1);
  const members = useQuery({
    queryKey: keys.segments.membersPage(projectId, segment.id, page),
    placeholderData: keepPreviousData,
    queryFn: () => unwrap(api.GET('/segments/{id}/contacts', { params: { path: { id: segment.id }, query: { page, pageSize: PAGE_SIZE } } })),
  });
  const pages = members.data ? Math.max(1, Math.ceil(members.data.total / PAGE_SIZE)) : 1;
  return (
    <Paper withBorder p="md" component="section" aria-label={t('members.title')}>
      <Stack gap="sm">
        <Title order={2} size="h4">
          {t('members.title')}
        </Title>
        {members.isPending ? <Loading /> : null}
        {members.error ? <ErrorState error={members.error} /> : null}
        {members.data && !members.data.data.length ? <Empty>{segment.type === 'STATIC' ? t('members.emptyStatic') : t('members.emptyDynamic')}</Empty> : null}
        {members.data?.data.length ? (
          <ScrollArea>
            <Table aria-label={t('members.table')} striped miw={520}>
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>{t('members.email')}</Table.Th>
                  <Table.Th>{t('members.subscribed')}</Table.Th>
                  <Table.Th>{t('members.created')}</Table.Th>
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {members.data.data.map((c) => (
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
                ))}
              </Table.Tbody>
            </Table>
          </ScrollArea>
        ) : null}
        {members.data ? (
          <Group justify="space-between">
            <Text size="sm" c="dimmed" data-testid="members-total">
              {t('members.now', { count: members.data.total, n: numberWords(members.data.total) })}
            </Text>
            {pages > 1 ? <Pagination size="sm" total={pages} value={page} onChange={setPage} aria-label={t('members.pages')} /> : null}
          </Group>
        ) : null}
      </Stack>
    </Paper>
  );
}

/** POST / DELETE /segments/:id/members with pasted addresses (STATIC segments). */
export function StaticMembers({ projectId, segment }: { projectId: string; segment: Segment }) {
  const { t } = useTranslation('data');
  const qc = useQueryClient();
  const [text, setText] = useState('');
  const [createMissing, setCreateMissing] = useState(false);
  const [result, setResult] = useState<string | null>(null);
  const emails = parseAddresses(text);
  const done = async (action: 'added' | 'removed', count: number, notFound: string[]) => {
    const words = { count, n: numberWords(count), missing: notFound.join(', ') };
    setResult(
      action === 'added'
        ? t(notFound.length ? 'members.addedMissing' : 'members.added', words)
        : t(notFound.length ? 'members.removedMissing' : 'members.removed', words),
    );
    setText('');
    await qc.invalidateQueries({ queryKey: keys.segments.members(projectId, segment.id) });
    await qc.invalidateQueries({ queryKey: keys.segments.one(projectId, segment.id) });
    await qc.invalidateQueries({ queryKey: keys.segments.all(projectId) });
  };
  const path = { params: { path: { id: segment.id } } };
  const add = useMutation({
    meta: { success: t('members.addedToast') },
    mutationFn: () => unwrap(api.POST('/segments/{id}/members', { ...path, body: { emails, createMissing } })),
    onSuccess: (r) => done('added', r.added, r.notFound),
  });
  const remove = useMutation({
    meta: { success: t('members.removedToast') },
    mutationFn: () => unwrap(api.DELETE('/segments/{id}/members', { ...path, body: { emails } })),
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
              add.mutate();
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
              remove.mutate();
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
