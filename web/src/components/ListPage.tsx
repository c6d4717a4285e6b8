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

/**
 * A list query's screen part: loading and error states, then a bordered table of its `data` (labelled
 * `label` for screen readers and the browser tests) or the empty message, and a footer under either.
 * A reply whose rows are not its `data` (a bare array, or one of its lists) names them with `items`.
 */
export function ListTable<D, I = D extends { data: readonly (infer X)[] } ? X : never>({
  query,
  items,
  label,
  head,
  row,
  empty,
  footer,
  errorTitle,
  states = true,
  ...table
}: {
  query: UseQueryResult<D>;
  /** The rows of a reply, when they are not its `data`. */
  items?: (data: D) => readonly I[];
  label: string;
  /** The header cells (`Table.Th`); a table without them has no header row. */
  head?: ReactNode;
  /** One `Table.Tr` (with its key) per item. */
  row: (item: I) => ReactNode;
  /** Shown instead of the table when the page has no items. */
  empty: ReactNode;
  footer?: (data: D) => ReactNode;
  /** The title of the error state, when the screen says what failed to load. */
  errorTitle?: string;
  /** False when another table of the same query already shows its loading and error states. */
  states?: boolean;
} & Pick<TableProps, 'miw' | 'highlightOnHover' | 'fz'>) {
  const list = query.data ? (items ? items(query.data) : (query.data as unknown as { data: readonly I[] }).data) : [];
  return (
    <>
      {states && query.isPending ? <Loading /> : null}
      {states && query.error ? <ErrorState error={query.error} title={errorTitle} /> : null}
      {query.data ? (
        <Paper withBorder>
          {list.length ? (
            <ScrollArea>
              <Table aria-label={label} striped {...table}>
                {head ? (
                  <Table.Thead>
                    <Table.Tr>{head}</Table.Tr>
                  </Table.Thead>
                ) : null}
                <Table.Tbody>{list.map((item) => row(item))}</Table.Tbody>
              </Table>
            </ScrollArea>
          ) : (
            <Empty>{empty}</Empty>
          )}
          {footer ? footer(query.data) : null}
        </Paper>
      ) : null}
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
}: {
  count: ReactNode;
  countTestId?: string;
  page: number;
  totalPages: number;
  onPage: (page: number) => void;
}) {
  const { t } = useTranslation('common');
  return (
    <Group justify="space-between" p="sm">
      <Text size="sm" c="dimmed" data-testid={countTestId}>
        {count}
      </Text>
      {totalPages > 1 ? <Pagination size="sm" total={totalPages} value={page} onChange={onPage} aria-label={t('pages')} /> : null}
    </Group>
  );
}
