import { Fieldset, NumberInput, Select, Switch, Textarea, TextInput } from '@mantine/core';
import { useEffect, useState } from 'react';
import { FilterBuilder, newTree, type FilterTree } from '../FilterBuilder';
import type { JsonSchema } from '../../api/workflows';
import { useStepWords } from './useStepWords';
import { useTranslation } from 'react-i18next';

/** The inputs of a config form (ConfigForm) that hold no other field: enums, strings, numbers, booleans, JSON and the filter tree. */

export interface FieldProps {
  projectId: string;
  schema: JsonSchema;
  value: unknown;
  onChange: (v: unknown) => void;
  /** The config path (`timeout.amount`), which the API's field errors use. */
  path: string;
  label: string;
  required: boolean;
  errors: Record<string, string>;
  /** Marks an error path as shown by an input. */
  claim: (path: string) => void;
}

export const typeOf = (s: JsonSchema) => (Array.isArray(s.type) ? s.type.find((t) => t !== 'null') : s.type);
export const join = (path: string, key: string | number) => (path ? `${path}.${key}` : String(key));

/** An enum, a string, a number or a boolean; anything else is edited as JSON. */
export function ScalarField(props: FieldProps) {
  const { t } = useTranslation('workflows');
  const words = useStepWords();
  const { schema, value, onChange, label, required, errors, path } = props;
  const error = errors[path];
  const description = schema.description;
  if (schema.enum) {
    return (
      <Select
        label={label}
        required={required}
        description={description}
        data={schema.enum.map((v) => ({ value: String(v), label: words.value(String(v)) }))}
        value={value === undefined ? null : String(value)}
        clearable={!required}
        onChange={(v) => onChange(v ?? undefined)}
        error={error}
      />
    );
  }

  switch (typeOf(schema)) {
    case 'string': {
      const long = schema.maxLength === undefined || schema.maxLength > 1000;
      const Input = long ? Textarea : TextInput;
      return (
        <Input
          label={label}
          required={required}
          description={description}
          type={schema.format === 'email' ? 'email' : schema.format === 'uri' ? 'url' : undefined}
          autosize={long || undefined}
          minRows={long ? 2 : undefined}
          value={(value as string | undefined) ?? ''}
          onChange={(e) => onChange(e.currentTarget.value === '' && !required ? undefined : e.currentTarget.value)}
          error={error}
        />
      );
    }
    case 'number':
    case 'integer':
      return (
        <NumberInput
          label={label}
          required={required}
          description={description}
          allowDecimal={typeOf(schema) === 'number'}
          value={(value as number | undefined) ?? ''}
          onChange={(v) => onChange(typeof v === 'number' ? v : undefined)}
          error={error}
        />
      );
    case 'boolean':
      if (required)
        return <Switch label={label} description={description} checked={value === true} onChange={(e) => onChange(e.currentTarget.checked)} error={error} />;
      return (
        <Select
          label={label}
          description={description}
          data={[
            { value: '', label: t('config.leaveUnchanged') },
            { value: 'true', label: t('config.yes') },
            { value: 'false', label: t('config.no') },
          ]}
          value={value === undefined ? '' : String(value)}
          allowDeselect={false}
          onChange={(v) => onChange(v === 'true' ? true : v === 'false' ? false : undefined)}
          error={error}
        />
      );
    default:
      return <JsonField {...props} />;
  }
}

/** A map or anything the form has no input for: edited as JSON, parsed as it is typed. */
export function JsonField({ value, onChange, label, required, errors, path, schema }: FieldProps) {
  const { t: tr } = useTranslation('workflows');
  const [text, setText] = useState(() => (value === undefined ? '' : JSON.stringify(value, null, 2)));
  const [problem, setProblem] = useState<string>();
  useEffect(() => {
    // Follow a value changed from outside (another form variant) unless it is what the text says.
    setText((t) => {
      try {
        if (JSON.stringify(JSON.parse(t)) === JSON.stringify(value)) return t;
      } catch {}
      return value === undefined ? '' : JSON.stringify(value, null, 2);
    });
  }, [value]);
  return (
    <Textarea
      label={label}
      required={required}
      description={schema.description ?? tr('config.json')}
      autosize
      minRows={2}
      styles={{ input: { fontFamily: 'monospace' } }}
      value={text}
      onChange={(e) => {
        const t = e.currentTarget.value;
        setText(t);
        if (t.trim() === '') {
          setProblem(undefined);
          return onChange(undefined);
        }
        try {
          onChange(JSON.parse(t));
          setProblem(undefined);
        } catch {
          setProblem(tr('config.notJson'));
        }
      }}
      error={problem ?? errors[path]}
    />
  );
}

export function FilterTreeField({ projectId, value, onChange, path, label, errors, claim }: FieldProps) {
  // The builder shows messages by node path below its tree (`groups.0.filters.1.value`).
  const nodeErrors: Record<string, string> = {};
  for (const [p, m] of Object.entries(errors)) {
    if (p === path || p.startsWith(`${path}.`)) {
      claim(p);
      nodeErrors[p === path ? '' : p.slice(path.length + 1)] = m;
    }
  }
  const isTree = !!value && typeof value === 'object' && 'groups' in value;
  const tree = (isTree ? value : newTree()) as FilterTree;
  useEffect(() => {
    // A new step starts from the builder's first filter, so what is shown is what gets saved.
    if (!isTree) onChange(tree);
  });
  return (
    <Fieldset legend={label}>
      <FilterBuilder projectId={projectId} value={tree} onChange={(t) => onChange(t)} errors={nodeErrors} />
    </Fieldset>
  );
}
