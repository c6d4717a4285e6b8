import { Group, NumberInput, Select, TagsInput, TextInput } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { type Kind, UNITS, valueShape } from './fields';
import type { FilterCondition, FilterUnit } from './tree';

/** A filter's value, in the inputs its field and operator call for (none, a duration, a count within, a list, a typed value). */
export function ValueInput({
  kind,
  filter,
  onChange,
  error,
  unitError,
}: {
  kind: Kind;
  filter: FilterCondition;
  onChange: (f: FilterCondition) => void;
  error?: string;
  unitError?: string;
}) {
  const { t } = useTranslation('data');
  const shape = valueShape(kind, filter.operator);
  // The duration's unit, beside a duration or a count's window.
  const unitSelect = (
    <Select
      label={t('filter.unit')}
      data={UNITS.map((u) => ({ value: u, label: t(`filter.units.${u}`) }))}
      value={filter.unit ?? null}
      onChange={(u) => onChange({ ...filter, unit: (u as FilterUnit) ?? undefined })}
      allowDeselect={false}
      error={unitError}
      w={120}
    />
  );
  const set = (value: unknown) => onChange({ ...filter, value });
  const num = (v: string | number) => (typeof v === 'number' ? v : v === '' ? '' : Number.isFinite(Number(v)) ? Number(v) : v);
  switch (shape) {
    case 'none':
      return null;
    case 'duration':
      return (
        <Group gap="xs" wrap="nowrap" align="flex-start">
          <NumberInput label={t('filter.value')} min={0} value={filter.value as number | string} onChange={(v) => set(num(v))} error={error} w={110} />
          {unitSelect}
        </Group>
      );
    case 'countWithin': {
      // { atLeast, within } with the unit beside it (db/filters parseCountWithin).
      const v = (filter.value ?? {}) as { atLeast?: number | string; within?: number | string };
      return (
        <Group gap="xs" wrap="nowrap" align="flex-start">
          <NumberInput
            label={t('filter.times')}
            min={1}
            allowDecimal={false}
            value={v.atLeast ?? ''}
            onChange={(n) => set({ ...v, atLeast: num(n) })}
            error={error}
            w={90}
          />
          <NumberInput label={t('filter.within')} min={0} value={v.within ?? ''} onChange={(n) => set({ ...v, within: num(n) })} w={90} />
          {unitSelect}
        </Group>
      );
    }
    case 'list': {
      const values = Array.isArray(filter.value) ? (filter.value as unknown[]).map(String) : [];
      return (
        <TagsInput
          label={t('filter.value')}
          description={t('filter.listHint')}
          value={values}
          onChange={(vs) => set(kind === 'number' ? vs.map((v) => num(v)) : vs)}
          error={error}
          miw={220}
          style={{ flex: 1 }}
        />
      );
    }
    case 'count':
      return (
        <NumberInput
          label={t('filter.value')}
          description={t('filter.timesUnit')}
          min={0}
          allowDecimal={false}
          value={filter.value as number | string}
          onChange={(v) => set(num(v))}
          error={error}
          w={120}
        />
      );
    case 'number':
      return <NumberInput label={t('filter.value')} value={filter.value as number | string} onChange={(v) => set(num(v))} error={error} w={160} />;
    case 'boolean':
      return (
        <Select
          label={t('filter.value')}
          data={[
            { value: 'true', label: t('filter.yes') },
            { value: 'false', label: t('filter.no') },
          ]}
          value={String(filter.value ?? 'true')}
          onChange={(v) => set(v === 'true')}
          allowDeselect={false}
          error={error}
          w={110}
        />
      );
    case 'date':
      return (
        <TextInput
          label={t('filter.value')}
          type="date"
          value={typeof filter.value === 'string' ? filter.value.slice(0, 10) : ''}
          onChange={(e) => set(e.currentTarget.value)}
          error={error}
          w={170}
        />
      );
    default:
      return (
        <TextInput
          label={t('filter.value')}
          value={typeof filter.value === 'string' ? filter.value : String(filter.value ?? '')}
          onChange={(e) => set(e.currentTarget.value)}
          error={error}
          miw={180}
          style={{ flex: 1 }}
        />
      );
  }
}
