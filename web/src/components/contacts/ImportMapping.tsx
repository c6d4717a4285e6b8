import { Checkbox, Select, Table, Text, TextInput } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import type { ResponseOf } from '../../api/client';
import { i18n } from '../../i18n';

export type ImportPreview = ResponseOf<'/contacts/import/preview', 'post'>;
export type FieldType = ImportPreview['columns'][number]['type'];

/** One column's choice in the mapping step, sent as POST /contacts/import `mapping`. */
export interface ColumnChoice {
  column: string;
  key: string;
  type: FieldType;
  skip: boolean;
}

const TYPES: FieldType[] = ['string', 'number', 'boolean', 'date'];
const words = () => i18n.getFixedT(null, 'contacts');
/** A type's name as the person reads it ("Text", not the API's `string`). */
const typeLabel = (type: FieldType) => words()(`import.mapping.types.${type}`);
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
  choices.map((c) =>
    c.skip ? { column: c.column, skip: true } : isCore(c.key) ? { column: c.column, key: c.key.trim() } : { column: c.column, key: c.key.trim(), type: c.type },
  );

/** The first problem that would make the server refuse the mapping as a whole, said before uploading. */
export function mappingProblem(choices: ColumnChoice[]): string | null {
  const kept = choices.filter((c) => !c.skip);
  const t = words();
  if (!kept.some((c) => c.key.trim().toLowerCase() === 'email')) return t('import.mapping.needEmail');
  const blank = kept.find((c) => c.key.trim() === '');
  if (blank) return t('import.mapping.nameColumn', { column: blank.column });
  const keys = kept.map((c) => c.key.trim());
  const twice = keys.find((k, i) => keys.indexOf(k) !== i);
  return twice ? t('import.mapping.twice', { key: twice }) : null;
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
  const { t } = useTranslation('contacts');
  const typeOptions = TYPES.map((value) => ({ value, label: typeLabel(value) }));
  const set = (i: number, patch: Partial<ColumnChoice>) => onChange(choices.map((c, j) => (j === i ? { ...c, ...patch } : c)));
  return (
    <Table aria-label={t('import.mapping.label')} verticalSpacing={4}>
      <Table.Thead>
        <Table.Tr>
          <Table.Th>{t('import.mapping.column')}</Table.Th>
          <Table.Th>{t('import.mapping.firstValues')}</Table.Th>
          <Table.Th>{t('import.mapping.importAs')}</Table.Th>
          <Table.Th>{t('import.mapping.type')}</Table.Th>
          <Table.Th>{t('import.mapping.skip')}</Table.Th>
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
                  {c.column || t('import.mapping.noName')}
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
                  aria-label={t('import.mapping.importColumnAs', { column: c.column })}
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
                    {c.key.trim().toLowerCase() === 'email' ? t('import.mapping.emailAddress') : t('import.mapping.subscription')}
                  </Text>
                ) : (
                  <Select
                    size="xs"
                    w={130}
                    aria-label={t('import.mapping.typeOf', { column: c.column })}
                    data={typeOptions}
                    value={c.type}
                    allowDeselect={false}
                    disabled={c.skip}
                    onChange={(v) => v && set(i, { type: v as FieldType })}
                    description={existing && existing !== c.type ? t('import.mapping.registered', { type: typeLabel(existing) }) : undefined}
                  />
                )}
              </Table.Td>
              <Table.Td>
                <Checkbox
                  aria-label={t('import.mapping.skipColumn', { column: c.column })}
                  checked={c.skip}
                  onChange={(e) => set(i, { skip: e.currentTarget.checked })}
                />
              </Table.Td>
            </Table.Tr>
          );
        })}
      </Table.Tbody>
    </Table>
  );
}
