import { Checkbox, Select, Table, Text, TextInput } from '@mantine/core';
import type { ResponseOf } from '../../api/client';

export type ImportPreview = ResponseOf<'/contacts/import/preview', 'post'>;
export type FieldType = ImportPreview['columns'][number]['type'];

/** One column's choice in the mapping step, sent as POST /contacts/import `mapping`. */
export interface ColumnChoice {
  column: string;
  key: string;
  type: FieldType;
  skip: boolean;
}

const TYPE_OPTIONS: Array<{ value: FieldType; label: string }> = [
  { value: 'string', label: 'Text' },
  { value: 'number', label: 'Number' },
  { value: 'boolean', label: 'True / false' },
  { value: 'date', label: 'Date' },
];
const typeLabel = (t: FieldType) => TYPE_OPTIONS.find((o) => o.value === t)!.label;
const isCore = (key: string) => ['email', 'subscribed'].includes(key.trim().toLowerCase());

/**
 * The server's guess per column, except that a key the project already has keeps its registered
 * type: the registry fixes a field's type at its first value (spec, Contact data rule 3).
 */
export function initialChoices(preview: ImportPreview, registered: Map<string, FieldType>): ColumnChoice[] {
  return preview.columns.map((c) => ({ column: c.column, key: c.key, type: registered.get(c.key) ?? c.type, skip: c.column === '' }));
}

/** The form field: every column as chosen; email and subscribed carry no type. */
export const mappingOf = (choices: ColumnChoice[]) =>
  choices.map((c) => (c.skip ? { column: c.column, skip: true } : isCore(c.key) ? { column: c.column, key: c.key.trim() } : { column: c.column, key: c.key.trim(), type: c.type }));

/** The first problem that would make the server refuse the mapping as a whole, said before uploading. */
export function mappingProblem(choices: ColumnChoice[]): string | null {
  const kept = choices.filter((c) => !c.skip);
  if (!kept.some((c) => c.key.trim().toLowerCase() === 'email')) return 'One column must be imported as "email".';
  const blank = kept.find((c) => c.key.trim() === '');
  if (blank) return `Give column "${blank.column}" a name, or skip it.`;
  const keys = kept.map((c) => c.key.trim());
  const twice = keys.find((k, i) => keys.indexOf(k) !== i);
  return twice ? `Two columns are imported as "${twice}": rename or skip one.` : null;
}

/**
 * The mapping step: each column with its first values, the name it is imported as, its type (the
 * server's guess from the first rows) and whether to skip it.
 */
export function ImportMapping({
  choices,
  samples,
  registered,
  onChange,
}: {
  choices: ColumnChoice[];
  samples: string[][];
  registered: Map<string, FieldType>;
  onChange: (choices: ColumnChoice[]) => void;
}) {
  const set = (i: number, patch: Partial<ColumnChoice>) => onChange(choices.map((c, j) => (j === i ? { ...c, ...patch } : c)));
  return (
    <Table aria-label="Column mapping" verticalSpacing={4}>
      <Table.Thead>
        <Table.Tr>
          <Table.Th>Column</Table.Th>
          <Table.Th>First values</Table.Th>
          <Table.Th>Import as</Table.Th>
          <Table.Th>Type</Table.Th>
          <Table.Th>Skip</Table.Th>
        </Table.Tr>
      </Table.Thead>
      <Table.Tbody>
        {choices.map((c, i) => {
          const existing = registered.get(c.key.trim());
          const core = isCore(c.key);
          return (
            <Table.Tr key={i}>
              <Table.Td>
                <Text size="sm" fw={500} td={c.skip ? 'line-through' : undefined}>
                  {c.column || '(no name)'}
                </Text>
              </Table.Td>
              <Table.Td>
                <Text size="xs" c="dimmed" lineClamp={2} maw={180}>
                  {samples
                    .map((s) => s[i] ?? '')
                    .filter((v) => v !== '')
                    .slice(0, 3)
                    .join(', ') || '—'}
                </Text>
              </Table.Td>
              <Table.Td>
                <TextInput
                  size="xs"
                  aria-label={`Import column ${c.column} as`}
                  value={c.key}
                  disabled={c.skip}
                  onChange={(e) => {
                    const key = e.currentTarget.value;
                    const known = registered.get(key.trim());
                    set(i, known ? { key, type: known } : { key });
                  }}
                />
              </Table.Td>
              <Table.Td>
                {core ? (
                  <Text size="xs" c="dimmed">
                    {c.key.trim().toLowerCase() === 'email' ? 'Email address' : 'Subscription'}
                  </Text>
                ) : (
                  <Select
                    size="xs"
                    w={130}
                    aria-label={`Type of column ${c.column}`}
                    data={TYPE_OPTIONS}
                    value={c.type}
                    allowDeselect={false}
                    disabled={c.skip}
                    onChange={(v) => v && set(i, { type: v as FieldType })}
                    description={existing && existing !== c.type ? `The field is ${typeLabel(existing)}; filters keep treating it so` : undefined}
                  />
                )}
              </Table.Td>
              <Table.Td>
                <Checkbox aria-label={`Skip column ${c.column}`} checked={c.skip} onChange={(e) => set(i, { skip: e.currentTarget.checked })} />
              </Table.Td>
            </Table.Tr>
          );
        })}
      </Table.Tbody>
    </Table>
  );
}
