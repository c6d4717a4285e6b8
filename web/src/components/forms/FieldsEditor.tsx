import { ActionIcon, Button, Group, Paper, Select, Stack, Switch, TextInput } from '@mantine/core';
import { FORM_FIELD_TYPES, type FormField, type FormFieldType } from './formMarkup';
import { fieldError } from '../../api/client';

const TYPE_LABELS: Record<FormFieldType, string> = { text: 'Text', number: 'Number', date: 'Date', checkbox: 'Checkbox', select: 'Select' };

/** The form's fields after the implicit email: each a contact data key, its label, type and, for a select, its options. */
export function FieldsEditor({ fields, onChange, error }: { fields: FormField[]; onChange: (f: FormField[]) => void; error: unknown }) {
  const set = (i: number, patch: Partial<FormField>) => onChange(fields.map((f, j) => (j === i ? { ...f, ...patch } : f)));
  return (
    <Stack gap="xs" role="group" aria-label="Fields">
      <TextInput label="Email" description="Always the first field, required" value="email" disabled />
      {fields.map((f, i) => (
        <Paper key={i} withBorder p="xs">
          <Group align="flex-end" gap="xs" wrap="wrap">
            <TextInput label="Label" required value={f.label} onChange={(e) => set(i, { label: e.currentTarget.value })} error={fieldError(error, `fields.${i}.label`)} />
            <TextInput
              label="Contact field"
              description="Stored as data.<key>"
              required
              value={f.key}
              onChange={(e) => set(i, { key: e.currentTarget.value })}
              error={fieldError(error, `fields.${i}.key`)}
            />
            <Select
              label="Type"
              data={FORM_FIELD_TYPES.map((t) => ({ value: t, label: TYPE_LABELS[t] }))}
              value={f.type}
              allowDeselect={false}
              onChange={(v) => v && set(i, { type: v as FormFieldType, options: v === 'select' ? (f.options ?? []) : undefined })}
              error={fieldError(error, `fields.${i}.type`)}
            />
            <Switch label="Required" checked={f.required} onChange={(e) => set(i, { required: e.currentTarget.checked })} mb={8} />
            <ActionIcon variant="subtle" color="red" aria-label={`Remove field ${f.label || i + 1}`} onClick={() => onChange(fields.filter((_, j) => j !== i))} mb={4}>
              ×
            </ActionIcon>
          </Group>
          {f.type === 'select' ? (
            <TextInput
              mt="xs"
              label="Options"
              description="Separated by commas"
              value={(f.options ?? []).join(', ')}
              onChange={(e) => set(i, { options: e.currentTarget.value.split(',').map((o) => o.trim()) })}
              error={fieldError(error, `fields.${i}.options`)}
            />
          ) : null}
        </Paper>
      ))}
      <Group>
        <Button variant="default" size="xs" onClick={() => onChange([...fields, { key: '', label: '', type: 'text', required: false }])}>
          Add field
        </Button>
      </Group>
    </Stack>
  );
}
