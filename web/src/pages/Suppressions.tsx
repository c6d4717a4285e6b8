import { useState, type FormEvent } from 'react';
import { Anchor, Badge, Button, Divider, Group, Paper, Select, Stack, Table, Text, TextInput, Title } from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api, fieldError, hasFieldErrors, ResponseOf, unwrap } from '../api/client';
import { keys } from '../api/queryKeys';
import { useSuppressions } from '../api/hooks/suppressions';
import { useCurrentProject } from '../api/project';
import { ErrorState } from '../components/States';
import { ListPage, ListTable } from '../components/ListPage';
import { ConfirmDialog } from '../components/dialogs/ConfirmDialog';
import { EmailContentDialog } from '../components/dialogs/EmailContentDialog';
import { manages } from '../routes';
import { SuppressionCsv } from '../components/suppressions/SuppressionCsv';
import { momentWords } from '../api/dates';
import { restoreSuppression } from '../components/suppressions/restoreSuppression';
import { notifySuccess } from '../components/notify';
import { Trans, useTranslation } from 'react-i18next';

type Entry = ResponseOf<'/suppressions', 'get'>['data'][number];
type Reason = Entry['reason'];
const PAGE = 50;

/** Each reason's colour; its words are the catalogue's (mail:suppressions.reason). */
const REASON_COLORS: Record<Reason, string> = { HARD_BOUNCE: 'red', COMPLAINT: 'orange', MANUAL: 'gray' };

/** An erased person's entry keeps suppressing under a hash (docs/api.md "Erasure"): it has no address to show or to remove by. */
const erased = (e: Entry) => e.email.startsWith('erased:');

/** Where the entry came from: the email whose bounce or complaint added it (one click shows it as sent), or a person (this screen, the API). */
function Source({ projectId, entry }: { projectId: string; entry: Entry }) {
  const { t } = useTranslation('mail');
  const [shown, setShown] = useState<string | null>(null);
  if (entry.emailId)
    return (
      <Text size="sm">
        <Trans
          t={t}
          i18nKey="suppressions.reportedFor"
          components={{ anchor: <Anchor component="button" type="button" size="sm" onClick={() => setShown(entry.emailId ?? null)} /> }}
        />
        <EmailContentDialog projectId={projectId} emailId={shown} onClose={() => setShown(null)} />
      </Text>
    );
  return <Text size="sm">{entry.reason === 'MANUAL' ? t('suppressions.byPerson') : t('suppressions.byProvider')}</Text>;
}

/** "Add an address": POST /suppressions with one address (MANUAL), or every address of a CSV; one already listed is left as it is, and the screen says so. */
function AddSuppression({ projectId }: { projectId: string }) {
  const { t } = useTranslation('mail');
  const qc = useQueryClient();
  const [email, setEmail] = useState('');
  const [outcome, setOutcome] = useState<string | null>(null);
  const add = useMutation({
    mutationFn: (address: string) => unwrap(api.POST('/suppressions', { body: { emails: [address] } })),
    onSuccess: (r) => {
      setEmail('');
      setOutcome(r.added.length ? t('suppressions.added', { email: r.added[0] }) : t('suppressions.existing', { email: r.existing[0] }));
      return qc.invalidateQueries({ queryKey: keys.suppressions.all(projectId) });
    },
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    setOutcome(null);
    add.mutate(email.trim());
  };
  return (
    <Paper withBorder p="md" component="section" aria-label={t('suppressions.add')}>
      <form onSubmit={submit} noValidate>
        <Stack gap="sm">
          <Title order={2} size="h5">
            {t('suppressions.add')}
          </Title>
          <Group align="flex-start">
            <TextInput
              label={t('suppressions.email')}
              placeholder={t('suppressions.emailPlaceholder')}
              type="email"
              required
              value={email}
              onChange={(e) => setEmail(e.currentTarget.value)}
              error={fieldError(add.error, 'emails.0') ?? fieldError(add.error, 'emails')}
              w={320}
            />
            <Button type="submit" mt={25} loading={add.isPending}>
              {t('suppressions.suppress')}
            </Button>
          </Group>
          {add.error && !hasFieldErrors(add.error) ? <ErrorState error={add.error} title={t('suppressions.notAdded')} /> : null}
          {outcome ? (
            <Text size="sm" role="status">
              {outcome}
            </Text>
          ) : null}
        </Stack>
      </form>
      <Divider my="md" label={t('suppressions.orList')} labelPosition="left" />
      <SuppressionCsv projectId={projectId} />
    </Paper>
  );
}

/** Suppressions (docs/api.md "Suppressions"): the addresses no mail of the project is handed to, why each is there, and lifting one. */
export default function Suppressions() {
  const { t } = useTranslation(['mail', 'common']);
  const { projectId, project } = useCurrentProject();
  const may = manages(project?.role);
  const qc = useQueryClient();
  const [search, setSearch] = useState('');
  const [debounced] = useDebouncedValue(search.trim(), 300);
  const [reason, setReason] = useState<string>('all');
  // Cursor pagination: the stack holds the cursors of the pages before this one; another filter starts at its first page.
  const filter = `${reason}|${debounced}`;
  const [paging, setPaging] = useState<{ filter: string; cursors: (string | undefined)[] }>({ filter, cursors: [undefined] });
  const cursors = paging.filter === filter ? paging.cursors : [undefined];
  const setCursors = (next: (c: (string | undefined)[]) => (string | undefined)[]) => setPaging({ filter, cursors: next(cursors) });
  const cursor = cursors[cursors.length - 1];
  const [removing, setRemoving] = useState<Entry | null>(null);
  const list = useSuppressions(projectId, { search: debounced, reason, cursor, limit: PAGE });
  const remove = useMutation({
    mutationFn: (entry: Entry) => unwrap(api.DELETE('/suppressions/{email}', { params: { path: { email: entry.email } } })),
    // The dialog shows a failure itself; a toast would repeat it.
    meta: { failure: false },
    onSuccess: async (_r, entry) => {
      setRemoving(null);
      const refresh = () => qc.invalidateQueries({ queryKey: keys.suppressions.all(projectId) });
      notifySuccess(t('suppressions.removed', { email: entry.email }), {
        undo: { run: () => restoreSuppression(projectId, entry).finally(refresh) },
      });
      await refresh();
    },
  });
  const filtered = !!debounced || reason !== 'all';
  return (
    <ListPage title={t('suppressions.title')} description={t('suppressions.description')}>
      {/* Owners and admins change the list (docs/roles.md); a member reads it. */}
      {may ? (
        <AddSuppression projectId={projectId} />
      ) : (
        <Text size="sm" c="dimmed">
          {t('suppressions.readOnly')}
        </Text>
      )}
      <Group align="flex-end">
        <TextInput
          label={t('suppressions.search')}
          placeholder={t('suppressions.searchPlaceholder')}
          type="search"
          value={search}
          onChange={(e) => setSearch(e.currentTarget.value)}
          w={280}
        />
        <Select
          label={t('suppressions.reasonLabel')}
          value={reason}
          onChange={(v) => setReason(v ?? 'all')}
          allowDeselect={false}
          data={[
            { value: 'all', label: t('suppressions.allReasons') },
            ...(Object.keys(REASON_COLORS) as Reason[]).map((value) => ({ value, label: t(`suppressions.reason.${value}`) })),
          ]}
          w={180}
        />
      </Group>
      <ListTable
        query={list}
        label={t('suppressions.title')}
        miw={720}
        head={
          <>
            <Table.Th>{t('suppressions.address')}</Table.Th>
            <Table.Th>{t('suppressions.reasonLabel')}</Table.Th>
            <Table.Th>{t('suppressions.source')}</Table.Th>
            <Table.Th>{t('suppressions.addedAt')}</Table.Th>
            <Table.Th>{t('suppressions.expires')}</Table.Th>
            <Table.Th />
          </>
        }
        row={(e) => {
          const expired = !!e.expiresAt && new Date(e.expiresAt) <= new Date();
          return (
            <Table.Tr key={e.email}>
              <Table.Td>{erased(e) ? <Text c="dimmed">{t('suppressions.erased')}</Text> : e.email}</Table.Td>
              <Table.Td>
                <Badge variant="light" color={REASON_COLORS[e.reason]}>
                  {t(`suppressions.reason.${e.reason}`)}
                </Badge>
              </Table.Td>
              <Table.Td>
                <Source projectId={projectId} entry={e} />
              </Table.Td>
              <Table.Td>{momentWords(e.createdAt)}</Table.Td>
              <Table.Td>
                {e.expiresAt ? (expired ? t('suppressions.expired', { moment: momentWords(e.expiresAt) }) : momentWords(e.expiresAt)) : t('common:never')}
              </Table.Td>
              <Table.Td>
                {erased(e) || !may ? null : (
                  <Button
                    size="xs"
                    color="red"
                    variant="light"
                    aria-label={t('suppressions.removeNamed', { email: e.email })}
                    onClick={() => {
                      remove.reset();
                      setRemoving(e);
                    }}
                  >
                    {t('suppressions.remove')}
                  </Button>
                )}
              </Table.Td>
            </Table.Tr>
          );
        }}
        empty={filtered ? t('suppressions.noMatch') : t('suppressions.empty')}
        footer={(page) =>
          cursors.length > 1 || page.hasMore ? (
            <Group justify="flex-end" p="sm" gap="xs">
              <Button size="xs" variant="default" disabled={cursors.length < 2} onClick={() => setCursors((c) => c.slice(0, -1))}>
                {t('previousPage')}
              </Button>
              <Button size="xs" variant="default" disabled={!page.hasMore} onClick={() => setCursors((c) => [...c, page.cursor ?? undefined])}>
                {t('nextPage')}
              </Button>
            </Group>
          ) : null
        }
      />
      <ConfirmDialog
        opened={removing !== null}
        title={t('suppressions.removeTitle', { email: removing?.email ?? '' })}
        message={removing?.reason === 'MANUAL' ? t('suppressions.removeManual') : t('suppressions.removeReported')}
        confirmLabel={t('suppressions.removeConfirm')}
        confirmColor="red"
        loading={remove.isPending}
        error={remove.error}
        errorTitle={t('suppressions.notRemoved')}
        onConfirm={() => removing && remove.mutate(removing)}
        onCancel={() => setRemoving(null)}
      />
    </ListPage>
  );
}
