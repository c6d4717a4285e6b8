import { useEffect, useState } from 'react';
import { Button, Group, Paper, Select, Stack, Text, TextInput, Title } from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { useQueryClient } from '@tanstack/react-query';
import { keys } from '../api/queryKeys';
import { useContacts } from '../api/hooks/contacts';
import { useCurrentProject } from '../api/project';
import { Empty, ErrorState, Loading } from '../components/States';
import { AddContact } from '../components/dialogs/AddContact';
import { ImportCsv } from '../components/contacts/ImportCsv';
import { BulkActions } from '../components/contacts/BulkActions';
import { ColumnsMenu } from '../components/contacts/ColumnsMenu';
import { ContactTable } from '../components/contacts/ContactTable';
import { ExportCsv } from '../components/contacts/ExportCsv';
import { FilterPanel } from '../components/contacts/FilterPanel';
import { SavedViews } from '../components/contacts/SavedViews';
import { DEFAULT_VIEW, type ListView, matchingOf, viewOf } from '../components/contacts/listView';
import { usePageTitle } from '../components/usePageTitle';
import { pluralOf } from '../components/contacts/plural';
import { Trans, useTranslation } from 'react-i18next';
import { useCountWords } from '../components/CountText';

const PAGE = 25;

/**
 * The contacts list: a view (filter tree, search, columns; saved views in the side panel), listed by
 * POST /contacts/search in cursor pages, with bulk actions on the checked rows or on everything the
 * view matches, and "Export CSV" of the view.
 */
export default function Contacts() {
  const { t } = useTranslation('contacts');
  const countWords = useCountWords();
  const { projectId } = useCurrentProject();
  usePageTitle(t('title'));
  const qc = useQueryClient();
  const [view, setView] = useState<ListView>(DEFAULT_VIEW);
  const [activeId, setActiveId] = useState<string | null>(null);
  const [filtering, setFiltering] = useState(false);
  const [debounced] = useDebouncedValue(view.search.trim(), 300);
  const [subscribed, setSubscribed] = useState<string>('all');
  const [sort, setSort] = useState<'createdAt' | 'email'>('createdAt');
  // The server paginates by cursor: the stack holds the cursors of the pages before this one.
  const [cursors, setCursors] = useState<(string | undefined)[]>([undefined]);
  // Selected contact ids, across pages of the same listing, or the whole selection; a new filter starts afresh.
  const [selected, setSelected] = useState<string[]>([]);
  const [allMatching, setAllMatching] = useState(false);
  const [total, setTotal] = useState(0);
  const [estimated, setEstimated] = useState(false);
  const filterKey = JSON.stringify(view.filter);
  useEffect(() => {
    setCursors([undefined]);
    setSelected([]);
    setAllMatching(false);
  }, [debounced, subscribed, sort, filterKey]);
  const cursor = cursors[cursors.length - 1];
  const subscribedFlag = subscribed === 'all' ? undefined : subscribed === 'true';
  const matching = matchingOf({ ...view, search: debounced }, subscribedFlag);
  const page = useContacts(projectId, { matching, sort, cursor, limit: PAGE });
  // The count comes with the first page only (later pages answer 0).
  useEffect(() => {
    if (page.data && !page.isPlaceholderData && cursor === undefined) {
      setTotal(page.data.total);
      setEstimated(page.data.estimated === true);
    }
  }, [page.data, page.isPlaceholderData, cursor]);
  const refresh = () => qc.invalidateQueries({ queryKey: keys.contacts.all(projectId) });
  const narrowed = !!(view.filter || debounced || subscribed !== 'all');
  return (
    <Stack>
      <Group justify="space-between">
        <Title order={1} size="h2">
          {t('title')}
        </Title>
        <Group gap="xs">
          <ImportCsv projectId={projectId} onDone={refresh} />
          <AddContact projectId={projectId} />
        </Group>
      </Group>
      <Group align="flex-start" wrap="nowrap">
        <SavedViews
          projectId={projectId}
          current={view}
          activeId={activeId}
          onOpen={(v) => {
            setActiveId(v?.id ?? null);
            setView(v ? viewOf(v) : DEFAULT_VIEW);
            setFiltering(!!v?.filter);
          }}
        />
        <Stack style={{ flex: 1, minWidth: 0 }}>
          <Group align="flex-end">
            <TextInput
              label={t('list.search')}
              placeholder={t('list.searchPlaceholder')}
              type="search"
              value={view.search}
              onChange={(e) => setView({ ...view, search: e.currentTarget.value })}
              w={240}
            />
            <Select
              label={t('subscribed')}
              value={subscribed}
              onChange={(v) => setSubscribed(v ?? 'all')}
              allowDeselect={false}
              data={[
                { value: 'all', label: t('list.all') },
                { value: 'true', label: t('subscribed') },
                { value: 'false', label: t('unsubscribed') },
              ]}
              w={150}
            />
            <Select
              label={t('list.sortBy')}
              value={sort}
              onChange={(v) => setSort((v as 'createdAt' | 'email') ?? 'createdAt')}
              allowDeselect={false}
              data={[
                { value: 'createdAt', label: t('list.newest') },
                { value: 'email', label: t('list.emailAz') },
              ]}
              w={150}
            />
            <Button variant={view.filter ? 'light' : 'default'} onClick={() => setFiltering((f) => !f)} aria-expanded={filtering}>
              {view.filter ? t('list.filterOn') : t('list.filter')}
            </Button>
            <ColumnsMenu projectId={projectId} columns={view.columns} onChange={(columns) => setView({ ...view, columns })} />
            <ExportCsv projectId={projectId} view={view} />
          </Group>
          {filtering ? <FilterPanel projectId={projectId} applied={view.filter} onApply={(filter) => setView({ ...view, filter })} /> : null}
          <BulkActions
            projectId={projectId}
            target={allMatching ? { matching, count: total } : { contactIds: selected }}
            onDone={() => {
              setSelected([]);
              setAllMatching(false);
              return refresh();
            }}
          />
          {page.isPending ? <Loading /> : null}
          {page.error ? <ErrorState error={page.error} /> : null}
          {page.data ? (
            <Paper withBorder>
              {page.data.data.length ? (
                <ContactTable
                  projectId={projectId}
                  rows={page.data.data}
                  columns={view.columns}
                  selected={selected}
                  onSelect={setSelected}
                  total={total}
                  allMatching={allMatching}
                  onAllMatching={setAllMatching}
                />
              ) : narrowed ? (
                <Empty>
                  <Trans
                    t={t}
                    i18nKey="list.noMatch"
                    components={{
                      reset: (
                        <Button
                          size="compact-sm"
                          variant="subtle"
                          onClick={() => {
                            setView({ ...view, filter: null, search: '' });
                            setSubscribed('all');
                          }}
                        />
                      ),
                    }}
                  />
                </Empty>
              ) : (
                <Empty>{t('list.empty')}</Empty>
              )}
              <Group justify="space-between" p="sm">
                <Text size="sm" c="dimmed" data-testid="contact-total">
                  {t(`list.total.${estimated ? 'other' : pluralOf(total)}`, { n: countWords(total, estimated) })}
                </Text>
                <Group gap="xs">
                  <Button size="xs" variant="default" disabled={cursors.length < 2} onClick={() => setCursors((c) => c.slice(0, -1))}>
                    {t('list.previous')}
                  </Button>
                  <Button size="xs" variant="default" disabled={!page.data.hasMore} onClick={() => setCursors((c) => [...c, page.data!.cursor ?? undefined])}>
                    {t('list.next')}
                  </Button>
                </Group>
              </Group>
            </Paper>
          ) : null}
        </Stack>
      </Group>
    </Stack>
  );
}
