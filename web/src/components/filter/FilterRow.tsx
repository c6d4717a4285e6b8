import { ActionIcon, Group, Select, Stack, Text } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { defaultValue, errorAt, type Errors, type FieldOption, kindOf, OPERATORS, opLabel, valueShape } from './fields';
import type { FilterCondition, FilterOperator } from './tree';
import { ValueInput } from './ValueInput';

/** One filter: field, operator and value; changing the field or operator keeps the value when its shape stays. */
export function FilterRow({
  filter,
  path,
  options,
  errors,
  onChange,
  onRemove,
}: {
  filter: FilterCondition;
  path: string;
  options: FieldOption[];
  errors: Errors;
  onChange: (f: FilterCondition) => void;
  onRemove: () => void;
}) {
  const { t } = useTranslation('data');
  const kind = kindOf(filter.field, options);
  const fieldData = options.some((o) => o.value === filter.field) ? options : [...options, { value: filter.field, label: filter.field, kind }];
  const nodeError = errors[path];
  return (
    <Stack gap={4} data-filter-path={path}>
      <Group gap="xs" align="flex-start" wrap="wrap">
        <Select
          label={t('filter.field')}
          searchable
          data={fieldData.map(({ value, label }) => ({ value, label }))}
          value={filter.field}
          allowDeselect={false}
          onChange={(field) => {
            if (!field) return;
            const k = kindOf(field, options);
            const operator = OPERATORS[k].includes(filter.operator) ? filter.operator : OPERATORS[k][0];
            const keep = valueShape(k, operator) === valueShape(kind, filter.operator);
            onChange({ field, operator, ...(keep ? { value: filter.value, unit: filter.unit } : defaultValue(k, operator)) });
          }}
          error={errorAt(errors, `${path}.field`)}
          w={240}
        />
        <Select
          label={t('filter.operator')}
          data={OPERATORS[kind].map((op) => ({ value: op, label: opLabel(t, kind, op) }))}
          value={filter.operator}
          allowDeselect={false}
          onChange={(op) => {
            if (!op) return;
            const operator = op as FilterOperator;
            const keep = valueShape(kind, operator) === valueShape(kind, filter.operator);
            onChange({ field: filter.field, operator, ...(keep ? { value: filter.value, unit: filter.unit } : defaultValue(kind, operator)) });
          }}
          error={errorAt(errors, `${path}.operator`)}
          w={210}
        />
        <ValueInput kind={kind} filter={filter} onChange={onChange} error={errorAt(errors, `${path}.value`)} unitError={errors[`${path}.unit`]} />
        <ActionIcon variant="subtle" color="gray" aria-label={t('filter.removeFilter')} onClick={onRemove} mt={26}>
          ×
        </ActionIcon>
      </Group>
      {nodeError ? (
        <Text size="sm" c="red" role="alert">
          {nodeError}
        </Text>
      ) : null}
    </Stack>
  );
}
