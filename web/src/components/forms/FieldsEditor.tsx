import { ActionIcon, Button, Group, Paper, Select, Stack, Switch, TextInput } from '@mantine/core';
import { FORM_FIELD_TYPES, type FormField, type FormFieldType } from './formMarkup';
import { fieldError } from '../../api/client';
import { useTranslation } from 'react-i18next';

/** The form's fields after the implicit email: each a contact data key, its label, type and, for a select, its options. */
export function FieldsEditor({ fields, onChange, error }: { fields: FormField[]; onChange: (f: FormField[]) => void; error: unknown }) {
  const { t } = useTranslation('editor');
  const set = (i: number, patch: Partial<FormField>) => onChange(fields.map((f, j) => (j === i ? { ...f, ...patch } : f)));
  return (
    <Stack gap="xs" role="group" aria-label={t('formFields.group')}>
      <TextInput label={t('formFields.email')} description={t('formFields.emailHint')} value="email" disabled />
      {fields.map((f, i) => (
        <Paper key={i} withBorder p="xs">
          <Group align="flex-end" gap="xs" wrap="wrap">
            <TextInput
              label={t('formFields.label')}
              required
              value={f.label}
              onChange={(e) => set(i, { label: e.currentTarget.value })}
              error={fieldError(error, `fields.${i}.label`)}
            />
            <TextInput
              label={t('formFields.contactField')}
              description={t('formFields.contactFieldHint', { path: 'data.<key>' })}
              required
              value={f.key}
              onChange={(e) => set(i, { key: e.currentTarget.value })}
              error={fieldError(error, `fields.${i}.key`)}
            />
            <Select
              label={t('formFields.type')}
              data={FORM_FIELD_TYPES.map((type) => ({ value: type, label: t(`formFields.types.${type}`) }))}
              value={f.type}
              allowDeselect={false}
              onChange={(v) => v && set(i, { type: v as FormFieldType, options: v === 'select' ? (f.options ?? []) : undefined })}
              error={fieldError(error, `fields.${i}.type`)}
            />
            <Switch label={t('formFields.required')} checked={f.required} onChange={(e) => set(i, { required: e.currentTarget.checked })} mb={8} />
            <ActionIcon
              variant="subtle"
              color="red"
              aria-label={t('formFields.remove', { field: f.label || i + 1 })}
              onClick={() => onChange(fields.filter((_, j) => j !== i))}
              mb={4}
            >
              ×
            </ActionIcon>
          </Group>
          {f.type === 'select' ? (
            <TextInput
              mt="xs"
              label={t('formFields.options')}
              description={t('formFields.optionsHint')}
              value={(f.options ?? []).join(', ')}
              onChange={(e) => set(i, { options: e.currentTarget.value.split(',').map((o) => o.trim()) })}
              error={fieldError(error, `fields.${i}.options`)}
            />
          ) : null}
        </Paper>
      ))}
      <Group>
        <Button variant="default" size="xs" onClick={() => onChange([...fields, { key: '', label: '', type: 'text', required: false }])}>
          {t('formFields.add')}
        </Button>
      </Group>
    </Stack>
  );
}
