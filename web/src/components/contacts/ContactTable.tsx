import { Anchor, Badge, Button, Checkbox, Paper, ScrollArea, Table, Text } from '@mantine/core';
import { Link } from 'react-router';
import { useTranslation } from 'react-i18next';
import { momentWords, numberWords } from '../../api/dates';
import { pluralOf } from './plural';
import { columnLabel, type Contact, fieldCell } from './listView';

function Cell({ projectId, contact, column }: { projectId: string; contact: Contact; column: string }) {
  const { t } = useTranslation('contacts');
  if (column === 'email')
    return (
      <Anchor component={Link} to={`/p/${projectId}/contacts/${contact.id}`}>
        {contact.email}
      </Anchor>
    );
  if (column === 'subscribed')
    return (
      <Badge color={contact.subscribed ? 'green' : 'gray'} variant="light">
        {contact.subscribed ? t('subscribed') : t('unsubscribed')}
      </Badge>
    );
  if (column === 'createdAt' || column === 'updatedAt') return <>{momentWords(contact[column])}</>;
  return <>{fieldCell(contact.data, column.replace(/^data\./, ''))}</>;
}

/**
 * One page of contacts in the view's columns, with a checkbox per row. Once the whole page is
 * checked, a banner offers "Select all N matching": the bulk actions then take the selection
 * itself (`matching`), not the ids of the rows seen.
 */
export function ContactTable({
  projectId,
  rows,
  columns,
  selected,
  onSelect,
  total,
  allMatching,
  onAllMatching,
}: {
  projectId: string;
  rows: Contact[];
  columns: string[];
  selected: string[];
  onSelect: (ids: string[]) => void;
  total: number;
  allMatching: boolean;
  onAllMatching: (on: boolean) => void;
}) {
  const { t } = useTranslation('contacts');
  const ids = rows.map((c) => c.id);
  const pageChecked = allMatching || (rows.length > 0 && ids.every((id) => selected.includes(id)));
  const some = ids.some((id) => selected.includes(id));
  return (
    <>
      {pageChecked && total > rows.length ? (
        <Paper withBorder p="xs" bg="var(--mantine-color-indigo-light)" role="status" aria-label={t('table.selection')}>
          {allMatching ? (
            <Text size="sm" ta="center">
              {t('table.allSelected', { n: numberWords(total) })}{' '}
              <Button size="compact-sm" variant="subtle" onClick={() => onAllMatching(false)}>
                {t('table.clearSelection')}
              </Button>
            </Text>
          ) : (
            <Text size="sm" ta="center">
              {t(`table.pageSelected.${pluralOf(rows.length)}`, { n: numberWords(rows.length) })}{' '}
              <Button size="compact-sm" variant="subtle" onClick={() => onAllMatching(true)}>
                {t('table.selectAllMatching', { n: numberWords(total) })}
              </Button>
            </Text>
          )}
        </Paper>
      ) : null}
      <ScrollArea>
        <Table aria-label={t('table.label')} striped highlightOnHover miw={560}>
          <Table.Thead>
            <Table.Tr>
              <Table.Th w={40}>
                <Checkbox
                  aria-label={t('table.selectPage')}
                  checked={pageChecked}
                  indeterminate={!pageChecked && some}
                  onChange={(e) => {
                    const on = e.currentTarget.checked;
                    if (!on) onAllMatching(false);
                    onSelect(on ? [...new Set([...selected, ...ids])] : selected.filter((id) => !ids.includes(id)));
                  }}
                />
              </Table.Th>
              {columns.map((c) => (
                <Table.Th key={c}>{columnLabel(c)}</Table.Th>
              ))}
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {rows.map((c) => {
              const checked = allMatching || selected.includes(c.id);
              return (
                <Table.Tr key={c.id} bg={checked ? 'var(--mantine-color-indigo-light)' : undefined}>
                  <Table.Td>
                    <Checkbox
                      aria-label={t('table.selectOne', { email: c.email })}
                      checked={checked}
                      disabled={allMatching}
                      onChange={(e) => onSelect(e.currentTarget.checked ? [...selected, c.id] : selected.filter((id) => id !== c.id))}
                    />
                  </Table.Td>
                  {columns.map((col) => (
                    <Table.Td key={col}>
                      <Cell projectId={projectId} contact={c} column={col} />
                    </Table.Td>
                  ))}
                </Table.Tr>
              );
            })}
          </Table.Tbody>
        </Table>
      </ScrollArea>
    </>
  );
}
