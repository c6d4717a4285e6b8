import { useState, type FormEvent } from 'react';
import { ColorInput, Paper, SimpleGrid, Stack, Text, Textarea, TextInput, Title } from '@mantine/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { getBrand, putBrand, type Brand } from '../../api/emailEditor';
import { UploadImage } from './UploadImage';
import { SaveButton } from '../SaveButton';
import { ErrorState, Loading } from '../States';

const COLOURS: Array<{ key: keyof Brand['colors']; label: string }> = [
  { key: 'background', label: 'Background' },
  { key: 'content', label: 'Content background' },
  { key: 'text', label: 'Text' },
  { key: 'accent', label: 'Accent (buttons, links)' },
];

function BrandForm({ projectId, brand, may }: { projectId: string; brand: Brand; may: boolean }) {
  const qc = useQueryClient();
  const [draft, setDraft] = useState<Brand>(brand);
  const save = useMutation({
    meta: { success: 'Brand saved' },
    mutationFn: () => putBrand(projectId, { ...draft, logoUrl: draft.logoUrl?.trim() ? draft.logoUrl.trim() : null }),
    onSuccess: (saved) => qc.setQueryData(['brand', projectId], saved),
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    save.mutate();
  };
  return (
    <form onSubmit={submit} noValidate>
      <Stack gap="sm">
        <TextInput label="Logo URL" description="An https address of the logo image, shown at the top of new emails" placeholder="https://" value={draft.logoUrl ?? ''} onChange={(e) => setDraft({ ...draft, logoUrl: e.currentTarget.value })} disabled={!may} />
        {may ? <UploadImage projectId={projectId} onUploaded={(logoUrl) => setDraft((d) => ({ ...d, logoUrl }))} /> : null}
        <SimpleGrid cols={{ base: 1, sm: 2, md: 4 }} spacing="sm">
          {COLOURS.map((c) => (
            <ColorInput withEyeDropper={false} key={c.key} label={c.label} format="hex" value={draft.colors[c.key]} onChange={(v) => setDraft({ ...draft, colors: { ...draft.colors, [c.key]: v } })} disabled={!may} />
          ))}
        </SimpleGrid>
        <TextInput label="Font stack" description="Fonts in order of preference, like Helvetica, Arial, sans-serif" value={draft.fontFamily} onChange={(e) => setDraft({ ...draft, fontFamily: e.currentTarget.value })} disabled={!may} />
        <SimpleGrid cols={{ base: 1, sm: 2 }} spacing="sm">
          <TextInput label="Company name" value={draft.footer.companyName} onChange={(e) => setDraft({ ...draft, footer: { ...draft.footer, companyName: e.currentTarget.value } })} disabled={!may} />
          <Textarea label="Postal address" description="Marketing email must show one (CAN-SPAM)" autosize minRows={2} value={draft.footer.address} onChange={(e) => setDraft({ ...draft, footer: { ...draft.footer, address: e.currentTarget.value } })} disabled={!may} />
        </SimpleGrid>
        {save.error ? <ErrorState error={save.error} title="Not saved" /> : null}
        {may ? <SaveButton label="Save brand" save={save} /> : null}
      </Stack>
    </form>
  );
}

/**
 * "Brand" (GET/PUT /brand): the logo, colours, font and footer new block emails start from; a block
 * email's unset settings follow it when it is next published.
 */
export function BrandSettings({ projectId, may }: { projectId: string; may: boolean }) {
  const brand = useQuery({ queryKey: ['brand', projectId], queryFn: () => getBrand(projectId) });
  return (
    <Paper withBorder p="md" component="section" aria-label="Brand">
      <Title order={2} size="h4" mb="sm">
        Brand
      </Title>
      <Text size="sm" c="dimmed" mb="sm">
        Block emails use these unless a block sets its own; the footer block shows the company name, the postal address and the subscription links.
      </Text>
      {brand.isPending ? <Loading /> : null}
      {brand.error ? <ErrorState error={brand.error} /> : null}
      {brand.data ? <BrandForm projectId={projectId} brand={brand.data} may={may} /> : null}
    </Paper>
  );
}
