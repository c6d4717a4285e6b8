import { Button, Checkbox, Menu, ScrollArea } from '@mantine/core';
import { useContactFields } from '../../api/hooks/contacts';
import { useTranslation } from 'react-i18next';
import { columnLabel, STANDARD_COLUMNS } from './listView';

/** "Columns": the standard ones and every field of GET /contacts/fields, checked when shown. */
export function ColumnsMenu({ projectId, columns, onChange }: { projectId: string; columns: string[]; onChange: (columns: string[]) => void }) {
  const { t } = useTranslation('contacts');
  const fields = useContactFields(projectId);
  const custom = (fields.data?.fields ?? []).filter((f) => f.isCustom).map((f) => ({ value: f.field, label: f.field.replace(/^data\./, '') }));
  const standard = STANDARD_COLUMNS.map((value) => ({ value, label: columnLabel(value) }));
  const toggle = (column: string, on: boolean) => onChange(on ? [...columns, column] : columns.filter((c) => c !== column));
  return (
    <Menu closeOnItemClick={false} position="bottom-end" withinPortal>
      <Menu.Target>
        <Button variant="default">{t('columns.menu')}</Button>
      </Menu.Target>
      <Menu.Dropdown aria-label={t('columns.menu')}>
        <ScrollArea.Autosize mah={320}>
          {[...standard, ...custom].map((c) => (
            <Menu.Item key={c.value} component="div">
              <Checkbox
                label={c.label}
                checked={columns.includes(c.value)}
                // The email links to the contact's page: a list without it could not be left.
                disabled={c.value === 'email'}
                onChange={(e) => toggle(c.value, e.currentTarget.checked)}
              />
            </Menu.Item>
          ))}
        </ScrollArea.Autosize>
      </Menu.Dropdown>
    </Menu>
  );
}
