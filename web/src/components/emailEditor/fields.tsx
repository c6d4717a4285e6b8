import { useRef } from 'react';
import { ColorInput, Group, NumberInput, SegmentedControl, Stack, Text, Textarea, TextInput } from '@mantine/core';
import { VariableMenu } from './VariableMenu';
import { useTranslation } from 'react-i18next';

/** A text setting with "Insert variable": the variable goes in at the caret (or the end). */
export function VariableField(props: {
  projectId: string;
  label: string;
  value: string;
  onChange(v: string): void;
  multiline?: boolean;
  description?: string;
  error?: string;
  required?: boolean;
}) {
  const { projectId, label, value, onChange, multiline, description, error, required } = props;
  const ref = useRef<HTMLInputElement & HTMLTextAreaElement>(null);
  const insert = (snippet: string) => {
    const el = ref.current;
    const at = el && el.selectionStart !== null ? el.selectionStart : value.length;
    const end = el && el.selectionEnd !== null ? el.selectionEnd : at;
    onChange(value.slice(0, at) + snippet + value.slice(end));
  };
  const common = { ref, label, description, error, required, value, onChange: (e: { currentTarget: { value: string } }) => onChange(e.currentTarget.value) };
  return (
    <Stack gap={4}>
      {multiline ? <Textarea {...common} autosize minRows={3} maxRows={12} /> : <TextInput {...common} />}
      <Group>
        <VariableMenu projectId={projectId} onInsert={insert} />
      </Group>
    </Stack>
  );
}

/** A colour setting: empty means the brand's. */
export function ColorField({ label, value, onChange }: { label: string; value: string | undefined; onChange(v: string | undefined): void }) {
  const { t } = useTranslation('editor');
  return (
    <ColorInput
      withEyeDropper={false}
      label={label}
      placeholder={t('fields.brandColour')}
      format="hex"
      value={value ?? ''}
      onChange={(v) => onChange(v ? v : undefined)}
    />
  );
}

export function NumberField({
  label,
  value,
  onChange,
  min,
  max,
  placeholder,
}: {
  label: string;
  value: number | undefined;
  onChange(v: number | undefined): void;
  min: number;
  max: number;
  placeholder?: string;
}) {
  return (
    <NumberInput
      label={label}
      min={min}
      max={max}
      placeholder={placeholder}
      value={value ?? ''}
      onChange={(v) => onChange(typeof v === 'number' ? v : undefined)}
      allowDecimal={false}
    />
  );
}

type Align = 'left' | 'center' | 'right';
export function AlignField({ value, onChange }: { value: Align | undefined; onChange(v: Align): void }) {
  const { t } = useTranslation('editor');
  return (
    <div>
      <Text size="sm" fw={500} id="align-label">
        {t('fields.alignment')}
      </Text>
      <SegmentedControl
        size="xs"
        aria-labelledby="align-label"
        value={value ?? 'left'}
        onChange={(v) => onChange(v as Align)}
        data={[
          { value: 'left', label: t('fields.left') },
          { value: 'center', label: t('fields.center') },
          { value: 'right', label: t('fields.right') },
        ]}
      />
    </div>
  );
}

export function UrlField({ label, value, onChange, description }: { label: string; value: string; onChange(v: string): void; description?: string }) {
  const { t } = useTranslation('editor');
  return <TextInput label={label} description={description} placeholder={t('examples.url')} value={value} onChange={(e) => onChange(e.currentTarget.value)} />;
}
