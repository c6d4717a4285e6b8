import { Select, SimpleGrid, TextInput } from '@mantine/core';
import { TEMPLATE_TYPES, type TemplateType } from '../../api/templates';
import type { Meta } from './templateDraft';

/** The template's settings: name, type, description and sender (not versioned). */
export function TemplateFields({ meta, set, errorOf }: { meta: Meta; set(patch: Partial<Meta>): void; errorOf(field: string): string | undefined }) {
  const text = (key: keyof Meta) => (e: { currentTarget: { value: string } }) => set({ [key]: e.currentTarget.value });
  return (
    <>
      <SimpleGrid cols={{ base: 1, sm: 2 }} spacing="sm">
        <TextInput label="Name" required value={meta.name} onChange={text('name')} error={errorOf('name')} />
        <Select
          label="Type"
          data={TEMPLATE_TYPES.map((t) => ({ value: t, label: t.charAt(0) + t.slice(1).toLowerCase() }))}
          value={meta.type}
          onChange={(v) => v && set({ type: v as TemplateType })}
          allowDeselect={false}
          error={errorOf('type')}
        />
      </SimpleGrid>
      <TextInput label="Description" description="An internal note, never sent" value={meta.description} onChange={text('description')} error={errorOf('description')} />
      <SimpleGrid cols={{ base: 1, sm: 3 }} spacing="sm">
        <TextInput label="From" type="email" required placeholder="hello@example.com" value={meta.from} onChange={text('from')} error={errorOf('from')} />
        <TextInput label="From name" value={meta.fromName} onChange={text('fromName')} error={errorOf('fromName')} />
        <TextInput label="Reply-to" type="email" value={meta.replyTo} onChange={text('replyTo')} error={errorOf('replyTo')} />
      </SimpleGrid>
    </>
  );
}
