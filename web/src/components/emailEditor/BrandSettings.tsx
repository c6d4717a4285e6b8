import { useState, type FormEvent } from 'react';
import { ColorInput, Paper, SimpleGrid, Stack, Text, Textarea, TextInput, Title } from '@mantine/core';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { putBrand, type Brand } from '../../api/emailEditor';
import { useBrand } from '../../api/hooks/templates';
import { UploadImage } from './UploadImage';
import { SaveButton } from '../SaveButton';
import { ErrorState, Loading } from '../States';
import { useTranslation } from 'react-i18next';
import { keys } from '../../api/queryKeys';

/** The brand's colours, in the form's order (their names: editor:brand.colours). */
const COLOURS: Array<keyof Brand['colors']> = ['background', 'content', 'text', 'accent'];

function BrandForm({ projectId, brand, may }: { projectId: string; brand: Brand; may: boolean }) {
  const { t } = useTranslation('editor');
  const qc = useQueryClient();
  const [draft, setDraft] = useState<Brand>(brand);
  const save = useMutation({
    meta: { success: t('brand.saved') },
    mutationFn: () => putBrand({ ...draft, logoUrl: draft.logoUrl?.trim() ? draft.logoUrl.trim() : null }),
    onSuccess: (saved) => qc.setQueryData(keys.templates.brand(projectId), saved),
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    save.mutate();
  };
  return (
    <form onSubmit={submit} noValidate>
      <Stack gap="sm">
        <TextInput
          label={t('brand.logoUrl')}
          description={t('brand.logoUrlHint')}
          placeholder={t('examples.url')}
          value={draft.logoUrl ?? ''}
          onChange={(e) => setDraft({ ...draft, logoUrl: e.currentTarget.value })}
          disabled={!may}
        />
        {may ? <UploadImage projectId={projectId} onUploaded={(logoUrl) => setDraft((d) => ({ ...d, logoUrl }))} /> : null}
        <SimpleGrid cols={{ base: 1, sm: 2, md: 4 }} spacing="sm">
          {COLOURS.map((key) => (
            <ColorInput
              withEyeDropper={false}
              key={key}
              label={t(`brand.colours.${key}`)}
              format="hex"
              value={draft.colors[key]}
              onChange={(v) => setDraft({ ...draft, colors: { ...draft.colors, [key]: v } })}
              disabled={!may}
            />
          ))}
        </SimpleGrid>
        <TextInput
          label={t('brand.font')}
          description={t('brand.fontHint')}
          value={draft.fontFamily}
          onChange={(e) => setDraft({ ...draft, fontFamily: e.currentTarget.value })}
          disabled={!may}
        />
        <SimpleGrid cols={{ base: 1, sm: 2 }} spacing="sm">
          <TextInput
            label={t('brand.company')}
            value={draft.footer.companyName}
            onChange={(e) => setDraft({ ...draft, footer: { ...draft.footer, companyName: e.currentTarget.value } })}
            disabled={!may}
          />
          <Textarea
            label={t('brand.address')}
            description={t('brand.addressHint')}
            autosize
            minRows={2}
            value={draft.footer.address}
            onChange={(e) => setDraft({ ...draft, footer: { ...draft.footer, address: e.currentTarget.value } })}
            disabled={!may}
          />
        </SimpleGrid>
        {save.error ? <ErrorState error={save.error} title={t('notSaved')} /> : null}
        {may ? <SaveButton label={t('brand.save')} save={save} /> : null}
      </Stack>
    </form>
  );
}

/**
 * "Brand" (GET/PUT /brand): the logo, colours, font and footer new block emails start from; a block
 * email's unset settings follow it when it is next published.
 */
export function BrandSettings({ projectId, may }: { projectId: string; may: boolean }) {
  const { t } = useTranslation('editor');
  const brand = useBrand(projectId);
  return (
    <Paper withBorder p="md" component="section" aria-label={t('brand.heading')}>
      <Title order={2} size="h4" mb="sm">
        {t('brand.heading')}
      </Title>
      <Text size="sm" c="dimmed" mb="sm">
        {t('brand.intro')}
      </Text>
      {brand.isPending ? <Loading /> : null}
      {brand.error ? <ErrorState error={brand.error} /> : null}
      {brand.data ? <BrandForm projectId={projectId} brand={brand.data} may={may} /> : null}
    </Paper>
  );
}
