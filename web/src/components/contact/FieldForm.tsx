import { useState, type FormEvent } from 'react';
import { Button, Group, Select, Stack, Textarea, TextInput } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { parseFieldValue, sourceOf, typeOf, VALUE_TYPES, type ValueType } from '../../api/contactFields';
import { ErrorState } from '../States';

/** Add or edit one custom field: PATCH /contacts/:id { data: { key: value } } changes only that key. */
export function FieldForm({
  initial,
  onSave,
  onClose,
  saving,
  error,
}: {
  initial: { key: string; value: unknown } | null;
  onSave: (key: string, value: unknown) => void;
  onClose: () => void;
  saving: boolean;
  error: unknown;
}) {
  const { t } = useTranslation('contacts');
  const [key, setKey] = useState(initial?.key ?? '');
  const [type, setType] = useState<ValueType>(initial ? typeOf(initial.value) : 'text');
  const [source, setSource] = useState(initial ? sourceOf(initial.value) : '');
  const [problem, setProblem] = useState<string | undefined>();
  const submit = (e: FormEvent) => {
    e.preventDefault();
    const parsed = parseFieldValue(type, source);
    setProblem(parsed.problem ? t(`valueProblem.${parsed.problem}`, { reason: parsed.reason }) : undefined);
    // A blank name goes to the API too: its sentence is the one the form shows (it stopped here silently).
    if (!parsed.problem) onSave(key.trim(), parsed.value);
  };
  return (
    <form onSubmit={submit} noValidate>
      <Stack>
        <TextInput label={t('detail.fieldName')} value={key} onChange={(e) => setKey(e.currentTarget.value)} disabled={!!initial} required data-autofocus />
        <Select
          label={t('detail.valueType')}
          data={VALUE_TYPES.map((value) => ({ value, label: t(`valueType.${value}`) }))}
          value={type}
          onChange={(v) => v && setType(v as ValueType)}
          allowDeselect={false}
        />
        {type === 'boolean' ? (
          <Select
            label={t('detail.value')}
            data={[
              { value: 'true', label: t('true') },
              { value: 'false', label: t('false') },
            ]}
            value={source === 'true' || source === 'false' ? source : null}
            onChange={(v) => setSource(v ?? '')}
            error={problem}
          />
        ) : type === 'json' ? (
          <Textarea
            label={t('detail.value')}
            value={source}
            onChange={(e) => setSource(e.currentTarget.value)}
            error={problem}
            autosize
            minRows={3}
            styles={{ input: { fontFamily: 'var(--mantine-font-family-monospace)' } }}
          />
        ) : (
          <TextInput
            label={t('detail.value')}
            value={source}
            onChange={(e) => setSource(e.currentTarget.value)}
            error={problem}
            inputMode={type === 'number' ? 'decimal' : undefined}
          />
        )}
        {error ? <ErrorState error={error} title={t('notSaved')} /> : null}
        <Group justify="flex-end">
          <Button variant="default" onClick={onClose}>
            {t('cancel')}
          </Button>
          <Button type="submit" loading={saving}>
            {t('detail.saveField')}
          </Button>
        </Group>
      </Stack>
    </form>
  );
}
