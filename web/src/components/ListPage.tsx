import { Group, Pagination, Paper, ScrollArea, Stack, Table, Text, Title, type TableProps } from '@mantine/core';
import type { UseQueryResult } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import { Empty, ErrorState, Loading } from './States';
import { useTranslation } from 'react-i18next';

/**
 * The frame of a list screen (Campaigns, Templates, Workflows, Topics, Audit log): the title, with the
 * screen's action beside it when it has one, an optional dimmed line saying what the screen is, then
 * the screen's own content (filters, forms, a ListTable, dialogs).
 */
export function ListPage({ title, action, description, children }: { title: string; action?: ReactNode; description?: ReactNode; children: ReactNode }) {
  const heading = (
    <Title order={1} size="h2">
      {title}
    </Title>
  );
  return (
    <Stack>
      {action ? (
        <Group justify="space-between">
          {heading}
          {action}
        </Group>
      ) : (
        heading
      )}
      {description ? (
        <Text size="sm" c="dimmed">
          {description}
        </Text>
      ) : null}
      {children}
    </Stack>
  );
}

/** A list answer's items: the answer itself when it is an array (GET /segments), else its `data` page. */
type ItemOf<D> = D extends readonly (infer I)[] ? I : D extends { data: readonly (infer I)[] } ? I : never;
const itemsOf = <D,>(d: D) => (Array.isArray(d) ? d : (d as { data: unknown[] }).data) as ItemOf<D>[];

/**
 * A list query's screen part: loading and error states, then a bordered table of its items (labelled
 * `label` for screen readers and the browser tests) or the empty message, and a footer under either.
 * `items` reads the rows from another shape (an infinite query's pages, a bare array); `framed={false}`
 * leaves out the border for a list inside a panel that has its own; `states={false}` leaves the loading
 * and error states to another table of the same query; without `head` there is no header row.
 */
export function ListTable<D, Item = ItemOf<D>>({
  query,
  items,
  label,
  head,
  row,
  empty,
  footer,
  loadingLabel,
  errorTitle,
  framed = true,
  states = true,
  striped = true,
  ...table
}: {
  query: Pick<UseQueryResult<D>, 'isPending' | 'error' | 'data'>;
  /** The rows of the data; unset: its `data` array. */
  items?: (data: D) => readonly Item[];
  label: string;
  /** The header cells (`Table.Th`); a table without them has no header row. */
  head?: ReactNode;
  /** One `Table.Tr` (with its key) per item. */
  row: (item: Item) => ReactNode;
  /** Shown instead of the table when the page has no items. */
  empty: ReactNode;
  footer?: (data: D) => ReactNode;
  /** The loading state's words; unset: "Loading…". */
  loadingLabel?: string;
  /** The error's title; unset: ErrorState's own. */
  errorTitle?: string;
  /** Whether the list has its own border (default); false inside a panel that has one. */
  framed?: boolean;
  /** False when another table of the same query already shows its loading and error states. */
  states?: boolean;
} & Pick<TableProps, 'miw' | 'highlightOnHover' | 'fz' | 'striped'>) {
  const data = query.data;
  const rows = data === undefined ? [] : items ? items(data) : (itemsOf(data) as readonly Item[]);
  const body =
    data !== undefined ? (
      <>
        {rows.length ? (
          <ScrollArea>
            <Table aria-label={label} striped={striped} {...table}>
              {head ? (
                <Table.Thead>
                  <Table.Tr>{head}</Table.Tr>
                </Table.Thead>
              ) : null}
              <Table.Tbody>{rows.map((item) => row(item))}</Table.Tbody>
            </Table>
          </ScrollArea>
        ) : (
          <Empty>{empty}</Empty>
        )}
        {footer ? footer(data) : null}
      </>
    ) : null;
  return (
    <>
      {states && query.isPending ? <Loading label={loadingLabel} /> : null}
      {states && query.error ? <ErrorState error={query.error} title={errorTitle} /> : null}
      {body && framed ? <Paper withBorder>{body}</Paper> : body}
    </>
  );
}

/** A ListTable footer: how many there are, and the pages when there is more than one. */
export function CountAndPages({
  count,
  countTestId,
  page,
  totalPages,
  onPage,
  pagesLabel,
}: {
  count: ReactNode;
  countTestId?: string;
  page: number;
  totalPages: number;
  onPage: (page: number) => void;
  /** The pager's name, where "Pages" alone would not say of what (a list inside a page). */
  pagesLabel?: string;
}) {
  const { t } = useTranslation('common');
  return (
    <Group justify="space-between" p="sm">
      <Text size="sm" c="dimmed" data-testid={countTestId}>
        {count}
      </Text>
      {totalPages > 1 ? <Pagination size="sm" total={totalPages} value={page} onChange={onPage} aria-label={pagesLabel ?? t('pages')} /> : null}
    </Group>
  );
}
