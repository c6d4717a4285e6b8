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
 */
export function ListTable<D extends { data: unknown[] }>({
  query,
  label,
  head,
  row,
  empty,
  footer,
  ...table
}: {
  query: UseQueryResult<D>;
  label: string;
  /** The header cells (`Table.Th`). */
  head: ReactNode;
  /** One `Table.Tr` (with its key) per item. */
  row: (item: D['data'][number]) => ReactNode;
  /** Shown instead of the table when the page has no items. */
  empty: ReactNode;
  footer?: (data: D) => ReactNode;
} & Pick<TableProps, 'miw' | 'highlightOnHover' | 'fz'>) {
  return (
    <>
      {query.isPending ? <Loading /> : null}
      {query.error ? <ErrorState error={query.error} /> : null}
      {query.data ? (
        <Paper withBorder>
          {query.data.data.length ? (
            <ScrollArea>
              <Table aria-label={label} striped {...table}>
                <Table.Thead>
                  <Table.Tr>{head}</Table.Tr>
                </Table.Thead>
                <Table.Tbody>{query.data.data.map((item) => row(item))}</Table.Tbody>
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
