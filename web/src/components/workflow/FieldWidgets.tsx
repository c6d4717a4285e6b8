import { Autocomplete, Fieldset, Group, NumberInput, Select } from '@mantine/core';
import { useTemplatePicker } from '../../api/hooks/templates';
import { useWorkflowPicker } from '../../api/hooks/workflows';
import { useEventNames } from '../../api/hooks/events';
import type { JsonSchema } from '../../api/workflows';
import { useTranslation } from 'react-i18next';

/**
 * The field widgets a step config's JSON Schema asks for by `format` (GET /workflows/step-types):
 * a template picker, an event name with the project's names offered, a duration. The filter tree
 * is the shared FilterBuilder (ConfigForm). Nothing here knows a step type.
 */

interface WidgetProps<T> {
  projectId: string;
  label: string;
  required: boolean;
  value: T | undefined;
  onChange: (value: T | undefined) => void;
  error?: string;
  description?: string;
}

export function TemplatePicker({ projectId, label, required, value, onChange, error, description }: WidgetProps<string>) {
  const { t: tr } = useTranslation('workflows');
  const typeWords = tr('widgets.templateType', { returnObjects: true }) as Record<string, string>;
  const templates = useTemplatePicker(projectId);
  const data = (templates.data?.data ?? []).map((t) => ({
    value: t.id,
    label: tr('widgets.template', { name: t.name, type: typeWords[t.type] ?? t.type.toLowerCase() }),
  }));
  if (value && !data.some((d) => d.value === value)) data.push({ value, label: value });
  return (
    <Select
      label={label}
      required={required}
      description={description ?? (templates.isPending ? tr('widgets.loadingTemplates') : data.length ? undefined : tr('widgets.noTemplates'))}
      placeholder={tr('widgets.pickTemplate')}
      data={data}
      value={value ?? null}
      onChange={(v) => onChange(v ?? undefined)}
      searchable
      clearable={!required}
      error={error ?? (templates.error instanceof Error ? templates.error.message : undefined)}
    />
  );
}

export function EventNameInput({ projectId, label, required, value, onChange, error, description }: WidgetProps<string>) {
  const { t } = useTranslation('workflows');
  const names = useEventNames(projectId);
  return (
    <Autocomplete
      label={label}
      required={required}
      description={description ?? t('widgets.eventHint')}
      data={[...new Set((names.data?.data ?? []).map((n) => n.name))]}
      value={value ?? ''}
      onChange={(v) => onChange(v === '' ? undefined : v)}
      error={error}
    />
  );
}

type Duration = { amount?: number; unit?: string };

export function DurationInput({
  schema,
  label,
  value,
  onChange,
  errors,
  path,
  legend = true,
}: {
  schema: JsonSchema;
  label: string;
  value: Duration | undefined;
  onChange: (v: Duration) => void;
  errors: Record<string, string>;
  path: string;
  legend?: boolean;
}) {
  const { t } = useTranslation('workflows');
  const units = (schema.properties?.unit?.enum as string[] | undefined) ?? ['minutes', 'hours', 'days', 'weeks'];
  // The server's unit codes, in words where the dashboard knows them.
  const unitWords = t('widgets.units', { returnObjects: true }) as Record<string, string>;
  const at = (k: string) => (path ? `${path}.${k}` : k);
  const body = (
    <Group align="flex-start" grow>
      <NumberInput
        label={t('widgets.amount')}
        required
        min={0}
        value={value?.amount ?? ''}
        onChange={(v) => onChange({ ...value, amount: typeof v === 'number' ? v : undefined })}
        error={errors[at('amount')]}
      />
      <Select
        label={t('widgets.unit')}
        required
        data={units.map((u) => ({ value: u, label: unitWords[u] ?? u }))}
        value={value?.unit ?? null}
        allowDeselect={false}
        onChange={(v) => onChange({ ...value, unit: v ?? undefined })}
        error={errors[at('unit')]}
      />
    </Group>
  );
  return legend ? <Fieldset legend={label}>{body}</Fieldset> : body;
}

/**
 * A searchable list for a config field whose schema names a `picker` (topic, segment, field): the
 * project's things of that kind by name, the stored value being the id (or the field path). An
 * unknown picker shows the value as it is, still from a list.
 */
export function ListPicker({ projectId, picker, label, required, value, onChange, error, description }: WidgetProps<string> & { picker: string }) {
  const { t } = useTranslation('workflows');
  const list = useWorkflowPicker(projectId, picker);
  const data = [...(list.data ?? [])];
  if (value && !data.some((d) => d.value === value)) data.push({ value, label: value });
  return (
    <Select
      label={label}
      required={required}
      description={description}
      placeholder={picker === 'topic' || picker === 'segment' || picker === 'field' ? t(`widgets.pick.${picker}`) : t('widgets.pick.other', { picker })}
      data={data}
      value={value ?? null}
      onChange={(v) => onChange(v ?? undefined)}
      searchable
      clearable={!required}
      error={error ?? (list.error instanceof Error ? list.error.message : undefined)}
    />
  );
}
