import { Button, Checkbox, Menu, ScrollArea } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client';
import { STANDARD_COLUMNS } from './listView';

/** "Columns": the standard ones and every field of GET /contacts/fields, checked when shown. */
export function ColumnsMenu({ projectId, columns, onChange }: { projectId: string; columns: string[]; onChange: (columns: string[]) => void }) {
  const fields = useQuery({ queryKey: ['contact-fields', projectId], queryFn: () => unwrap(api.GET('/contacts/fields')) });
  const custom = (fields.data?.fields ?? []).filter((f) => f.isCustom).map((f) => ({ value: f.field, label: f.field.replace(/^data\./, '') }));
  const toggle = (column: string, on: boolean) => onChange(on ? [...columns, column] : columns.filter((c) => c !== column));
  return (
    <Menu closeOnItemClick={false} position="bottom-end" withinPortal>
      <Menu.Target>
        <Button variant="default">Columns</Button>
      </Menu.Target>
      <Menu.Dropdown aria-label="Columns">
        <ScrollArea.Autosize mah={320}>
          {[...STANDARD_COLUMNS, ...custom].map((c) => (
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
