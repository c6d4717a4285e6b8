import { ActionIcon, Alert, Button, Fieldset, Group, MultiSelect, SegmentedControl, Stack, Switch, TagsInput, Text } from '@mantine/core';
import { useState } from 'react';
import { initialValue, labelOf, variantIndex, variantLabel, type JsonSchema } from '../../api/workflows';
import { type FieldProps, FilterTreeField, join, JsonField, ScalarField, typeOf } from './ConfigLeafFields';
import { DurationInput, EventNameInput, ListPicker, TemplatePicker } from './FieldWidgets';
import { useStepWords } from './useStepWords';
import { useTranslation } from 'react-i18next';

/**
 * A step's config form, generated from its type's JSON Schema (GET /workflows/step-types): objects,
 * unions, enums, strings, numbers, booleans, lists and maps, with a widget by `format` where the
 * schema names one (template-id, event-name, filter-tree, duration). No step type is named here, so
 * a type added to the registry is configurable without web code. `errors` are the API's messages by
 * config path (`branches.1.name`); those no input claims are listed above the form.
 */
export function ConfigForm({
  projectId,
  schema,
  value,
  onChange,
  errors,
}: {
  projectId: string;
  schema: JsonSchema;
  value: Record<string, unknown>;
  onChange: (v: Record<string, unknown>) => void;
  errors: Record<string, string>;
}) {
  const { t } = useTranslation('workflows');
  const claimed = new Set<string>();
  const field = (
    <SchemaField
      projectId={projectId}
      schema={schema}
      value={value}
      onChange={(v) => onChange((v ?? {}) as Record<string, unknown>)}
      path=""
      label=""
      required
      errors={errors}
      claim={(p) => claimed.add(p)}
    />
  );
  const loose = Object.entries(errors).filter(([p]) => !claimed.has(p));
  return (
    <Stack gap="sm">
      {loose.length ? (
        <Alert color="red" role="alert" title={t('config.refused')}>
          {loose.map(([p, m]) => (
            <Text key={p} size="sm">
              {p ? `${p}: ` : ''}
              {m}
            </Text>
          ))}
        </Alert>
      ) : null}
      {field}
    </Stack>
  );
}

function SchemaField(props: FieldProps) {
  const { t } = useTranslation('workflows');
  const { projectId, schema, value, onChange, path, label, required, errors, claim } = props;
  const error = errors[path];
  if (error !== undefined) claim(path);
  const description = schema.description;

  // A `picker` (a step type's `references`, or `.meta({ picker })` on its schema) chooses from a list;
  // the `template-id` and `event-name` formats choose the same way.
  const picker = schema.picker ?? (schema.format === 'template-id' ? 'template' : schema.format === 'event-name' ? 'event' : undefined);
  if (picker !== undefined) {
    const pickerProps = { projectId, label, required, value: value as string | undefined, onChange, error, description };
    if (picker === 'template') return <TemplatePicker {...pickerProps} />;
    if (picker === 'event') return <EventNameInput {...pickerProps} />;
    return <ListPicker {...pickerProps} picker={picker} />;
  }

  switch (schema.format) {
    case 'duration':
      for (const k of ['amount', 'unit']) if (errors[join(path, k)] !== undefined) claim(join(path, k));
      return (
        <DurationInput
          schema={schema}
          label={label || t('config.duration')}
          legend={path !== ''}
          value={value as { amount?: number; unit?: string } | undefined}
          onChange={onChange}
          errors={errors}
          path={path}
        />
      );
    case 'filter-tree':
      return <FilterTreeField {...props} />;
  }

  if (schema.anyOf || schema.oneOf) return <UnionField {...props} />;

  // An enum is a choice whatever its type; objects and lists hold fields of their own.
  const type = schema.enum ? undefined : typeOf(schema);
  if (type === 'object') return schema.properties ? <ObjectField {...props} /> : <JsonField {...props} />;
  if (type === 'array') return <ArrayField {...props} />;
  return <ScalarField {...props} />;
}

function ObjectField({ projectId, schema, value, onChange, path, label, required, errors, claim }: FieldProps) {
  const { t } = useTranslation('workflows');
  const words = useStepWords();
  const obj = (value ?? {}) as Record<string, unknown>;
  const present = value !== undefined;
  const requiredKeys = new Set(schema.required ?? []);
  const set = (key: string, v: unknown) => {
    const next = { ...obj };
    if (v === undefined) delete next[key];
    else next[key] = v;
    onChange(next);
  };
  const fields = Object.entries(schema.properties ?? {}).map(([key, child]) => (
    <SchemaField
      key={key}
      projectId={projectId}
      schema={child}
      value={obj[key]}
      onChange={(v) => set(key, v)}
      path={join(path, key)}
      label={words.field(key)}
      required={requiredKeys.has(key)}
      errors={errors}
      claim={claim}
    />
  ));
  if (path === '') return <Stack gap="sm">{fields.length ? fields : <Text c="dimmed">{t('config.nothing')}</Text>}</Stack>;
  return (
    <Fieldset legend={label}>
      <Stack gap="sm">
        {!required ? (
          <Switch
            label={t('config.set', { field: label.toLowerCase() })}
            checked={present}
            onChange={(e) => onChange(e.currentTarget.checked ? initialValue(schema) : undefined)}
          />
        ) : null}
        {present || required ? fields : null}
      </Stack>
    </Fieldset>
  );
}

function UnionField({ projectId, schema, value, onChange, path, label, required, errors, claim }: FieldProps) {
  const { t } = useTranslation('workflows');
  const stepWords = useStepWords();
  const words = { with: (fields: string) => t('config.withFields', { fields }), form: (n: number) => t('config.formN', { n }), field: stepWords.field };
  const variants = (schema.anyOf ?? schema.oneOf)!;
  const [index, setIndex] = useState(() => variantIndex(schema, value));
  const choose = (i: number) => {
    setIndex(i);
    // Keep what the two forms share; start the rest afresh.
    const start = initialValue(variants[i]) as Record<string, unknown>;
    const keep = Object.fromEntries(Object.entries((value ?? {}) as Record<string, unknown>).filter(([k]) => k in (variants[i].properties ?? {})));
    onChange({ ...start, ...keep });
  };
  return (
    <Stack gap="sm">
      <div>
        <Text size="sm" fw={500} id={`form-${path || 'root'}`}>
          {label || t('config.form')}
        </Text>
        <SegmentedControl
          aria-labelledby={`form-${path || 'root'}`}
          data={variants.map((_, i) => ({ value: String(i), label: variantLabel(schema, i, words) }))}
          value={String(index)}
          onChange={(v) => choose(Number(v))}
        />
      </div>
      <SchemaField
        projectId={projectId}
        schema={variants[index]}
        value={value}
        onChange={onChange}
        path={path}
        label={label}
        required={required}
        errors={errors}
        claim={claim}
      />
    </Stack>
  );
}

function ArrayField({ projectId, schema, value, onChange, path, label, required, errors, claim }: FieldProps) {
  const { t } = useTranslation('workflows');
  const words = useStepWords();
  const list = Array.isArray(value) ? value : [];
  const items = schema.items ?? {};
  const error = errors[path];
  if (items.enum) {
    return (
      <MultiSelect
        label={label}
        required={required}
        data={items.enum.map((v) => ({ value: String(v), label: words.value(String(v)) }))}
        value={list.map(String)}
        onChange={(v) => onChange(v.length || required ? v : undefined)}
        error={error}
      />
    );
  }
  if (typeOf(items) === 'string' && !items.format) {
    return (
      <TagsInput label={label} required={required} value={list.map(String)} onChange={(v) => onChange(v.length || required ? v : undefined)} error={error} />
    );
  }
  const max = schema.maxItems ?? Number.POSITIVE_INFINITY;
  const min = schema.minItems ?? 0;
  // The list's own property name (`branches` of `branches` or `x.branches`) names its rows.
  const one = words.item(path.split('.').pop() ?? '', label);
  return (
    <Fieldset legend={label} aria-describedby={error ? `${path}-error` : undefined}>
      <Stack gap="xs">
        {list.map((item, i) => (
          // Rows have no identity beyond their place; the API names them by index too.
          // biome-ignore lint/suspicious/noArrayIndexKey: see above
          <Group key={i} align="flex-end" wrap="nowrap" data-config-path={join(path, i)}>
            <div style={{ flex: 1 }}>
              <SchemaField
                projectId={projectId}
                schema={items}
                value={item}
                onChange={(v) => onChange(list.map((x, j) => (j === i ? v : x)))}
                path={join(path, i)}
                label={`${labelOf(one)} ${i + 1}`}
                required
                errors={errors}
                claim={claim}
              />
            </div>
            <ActionIcon
              variant="subtle"
              color="red"
              aria-label={t('config.remove', { item: one, n: i + 1 })}
              disabled={list.length <= min}
              onClick={() => onChange(list.filter((_, j) => j !== i))}
            >
              ×
            </ActionIcon>
          </Group>
        ))}
        <Group>
          <Button size="xs" variant="light" disabled={list.length >= max} onClick={() => onChange([...list, initialValue(items)])}>
            {t('config.add', { item: one })}
          </Button>
        </Group>
        {error ? (
          <Text size="sm" c="red" id={`${path}-error`}>
            {error}
          </Text>
        ) : null}
      </Stack>
    </Fieldset>
  );
}
