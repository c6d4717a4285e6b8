import { Select, SimpleGrid, TextInput } from '@mantine/core';
import { TEMPLATE_TYPES, type TemplateType } from '../../api/templates';
import type { Meta } from './templateDraft';
import { useTranslation } from 'react-i18next';

/** The template's settings: name, type, description and sender (not versioned). */
export function TemplateFields({ meta, set, errorOf }: { meta: Meta; set(patch: Partial<Meta>): void; errorOf(field: string): string | undefined }) {
  const { t } = useTranslation('editor');
  const text = (key: keyof Meta) => (e: { currentTarget: { value: string } }) => set({ [key]: e.currentTarget.value });
  return (
    <>
      <SimpleGrid cols={{ base: 1, sm: 2 }} spacing="sm">
        <TextInput label={t('templateFields.name')} required value={meta.name} onChange={text('name')} error={errorOf('name')} />
        <Select
          label={t('templateFields.type')}
          data={TEMPLATE_TYPES.map((type) => ({ value: type, label: t(`templateTypes.${type}`) }))}
          value={meta.type}
          onChange={(v) => v && set({ type: v as TemplateType })}
          allowDeselect={false}
          error={errorOf('type')}
        />
      </SimpleGrid>
      <TextInput
        label={t('templateFields.description')}
        description={t('templateFields.descriptionHint')}
        value={meta.description}
        onChange={text('description')}
        error={errorOf('description')}
      />
      <SimpleGrid cols={{ base: 1, sm: 3 }} spacing="sm">
        <TextInput
          label={t('templateFields.from')}
          type="email"
          required
          placeholder={t('examples.from')}
          value={meta.from}
          onChange={text('from')}
          error={errorOf('from')}
        />
        <TextInput label={t('templateFields.fromName')} value={meta.fromName} onChange={text('fromName')} error={errorOf('fromName')} />
        <TextInput label={t('templateFields.replyTo')} type="email" value={meta.replyTo} onChange={text('replyTo')} error={errorOf('replyTo')} />
      </SimpleGrid>
    </>
  );
}
