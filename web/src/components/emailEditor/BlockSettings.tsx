import { ActionIcon, Button, Group, Select, Stack, Switch, Text, Textarea, TextInput, Title } from '@mantine/core';
import type { Block } from '../../api/emailEditor';
import { UploadImage } from './UploadImage';
import { AlignField, ColorField, NumberField, UrlField, VariableField } from './fields';
import { useTranslation } from 'react-i18next';

type Network = Extract<Block, { type: 'social' }>['links'][number]['network'];
// lib/emailDocument's SOCIAL_NETWORKS, typed against it (a value import would bring zod into the bundle).
const NETWORKS: Network[] = ['facebook', 'x', 'instagram', 'linkedin', 'youtube', 'github', 'mastodon', 'web'];

type Patch = (patch: Partial<Block>, field: string) => void;

/** The settings only one type of block has. */
function TypeFields({ block, set, projectId }: { block: Block; set: Patch; projectId: string }) {
  const { t } = useTranslation('editor');
  switch (block.type) {
    case 'heading':
      return (
        <>
          <VariableField projectId={projectId} label={t('settings.text')} value={block.text} onChange={(text) => set({ text }, 'text')} />
          <Select
            label={t('settings.level')}
            data={['1', '2', '3']}
            value={String(block.level)}
            onChange={(v) => v && set({ level: Number(v) as 1 | 2 | 3 }, 'level')}
            allowDeselect={false}
          />
          <AlignField value={block.align} onChange={(align) => set({ align }, 'align')} />
          <ColorField label={t('settings.colour')} value={block.color} onChange={(color) => set({ color }, 'color')} />
        </>
      );
    case 'text':
      return (
        <>
          <VariableField
            projectId={projectId}
            label={t('settings.text')}
            description={t('settings.textTags', { tags: '<p>, <br>, <strong>, <em>, <a href>' })}
            multiline
            value={block.html}
            onChange={(html) => set({ html }, 'html')}
          />
          <AlignField value={block.align} onChange={(align) => set({ align }, 'align')} />
          <NumberField
            label={t('settings.fontSize')}
            min={10}
            max={40}
            placeholder="16"
            value={block.fontSize}
            onChange={(fontSize) => set({ fontSize }, 'fontSize')}
          />
          <ColorField label={t('settings.colour')} value={block.color} onChange={(color) => set({ color }, 'color')} />
        </>
      );
    case 'button':
      return (
        <>
          <VariableField projectId={projectId} label={t('settings.text')} value={block.text} onChange={(text) => set({ text }, 'text')} />
          <UrlField label={t('settings.link')} value={block.href} onChange={(href) => set({ href }, 'href')} />
          <AlignField value={block.align} onChange={(align) => set({ align }, 'align')} />
          <ColorField label={t('settings.buttonColour')} value={block.color} onChange={(color) => set({ color }, 'color')} />
          <ColorField label={t('settings.textColour')} value={block.textColor} onChange={(textColor) => set({ textColor }, 'textColor')} />
        </>
      );
    case 'image':
      return (
        <>
          <UrlField label={t('settings.imageUrl')} description={t('settings.imageUrlHint')} value={block.src} onChange={(src) => set({ src }, 'src')} />
          <UploadImage projectId={projectId} onUploaded={(src) => set({ src }, 'src:upload')} />
          <TextInput
            label={t('settings.alt')}
            description={t('settings.altHint')}
            value={block.alt}
            onChange={(e) => set({ alt: e.currentTarget.value }, 'alt')}
          />
          <UrlField label={t('settings.link')} value={block.href ?? ''} onChange={(href) => set({ href: href || undefined }, 'href')} />
          <NumberField
            label={t('settings.width')}
            min={20}
            max={600}
            placeholder={t('settings.fullWidth')}
            value={block.width}
            onChange={(width) => set({ width }, 'width')}
          />
          <AlignField value={block.align} onChange={(align) => set({ align }, 'align')} />
        </>
      );
    case 'divider':
      return (
        <>
          <ColorField label={t('settings.colour')} value={block.color} onChange={(color) => set({ color }, 'color')} />
          <NumberField
            label={t('settings.thickness')}
            min={1}
            max={10}
            placeholder="1"
            value={block.thickness}
            onChange={(thickness) => set({ thickness }, 'thickness')}
          />
        </>
      );
    case 'spacer':
      return <NumberField label={t('settings.height')} min={4} max={200} value={block.height} onChange={(height) => set({ height: height ?? 24 }, 'height')} />;
    case 'html':
      return (
        <Textarea
          label={t('settings.html')}
          description={t('settings.htmlHint')}
          autosize
          minRows={4}
          maxRows={16}
          value={block.html}
          onChange={(e) => set({ html: e.currentTarget.value }, 'html')}
          styles={{ input: { fontFamily: 'var(--mantine-font-family-monospace)', fontSize: 13 } }}
        />
      );
    case 'footer':
      return (
        <>
          <VariableField
            projectId={projectId}
            label={t('settings.text')}
            description={t('settings.footerText')}
            multiline
            value={block.text ?? ''}
            onChange={(text) => set({ text: text || undefined }, 'text')}
          />
          <Switch
            label={t('settings.viewInBrowser')}
            description={t('settings.viewInBrowserHint')}
            checked={block.viewInBrowser !== false}
            onChange={(e) => set({ viewInBrowser: e.currentTarget.checked ? undefined : false }, 'viewInBrowser')}
          />
          <AlignField value={block.align} onChange={(align) => set({ align }, 'align')} />
        </>
      );
    case 'social':
      return (
        <Stack gap={6}>
          {block.links.map((l, i) => (
            // biome-ignore lint/suspicious/noArrayIndexKey: links have no id; their place is who they are
            <Group key={i} gap={4} align="flex-end" wrap="nowrap">
              <Select
                label={t('settings.network', { number: i + 1 })}
                w={130}
                data={NETWORKS.map((n) => ({ value: n, label: t(`networks.${n}`) }))}
                value={l.network}
                allowDeselect={false}
                onChange={(v) => v && set({ links: block.links.map((x, j) => (j === i ? { ...x, network: v as typeof l.network } : x)) }, `links.${i}`)}
              />
              <TextInput
                label={t('settings.linkNumber', { number: i + 1 })}
                style={{ flex: 1 }}
                value={l.href}
                onChange={(e) => set({ links: block.links.map((x, j) => (j === i ? { ...x, href: e.currentTarget.value } : x)) }, `links.${i}.href`)}
              />
              <ActionIcon
                variant="subtle"
                color="red"
                aria-label={t('settings.removeLink', { number: i + 1 })}
                onClick={() => set({ links: block.links.filter((_, j) => j !== i) }, 'links')}
                mb={4}
              >
                ×
              </ActionIcon>
            </Group>
          ))}
          {block.links.length < 8 ? (
            <Button size="compact-xs" variant="subtle" onClick={() => set({ links: [...block.links, { network: 'web', href: 'https://' }] }, 'links')}>
              {t('settings.addLink')}
            </Button>
          ) : null}
          <AlignField value={block.align} onChange={(align) => set({ align }, 'align')} />
        </Stack>
      );
    case 'columns':
      return (
        <Select
          label={t('settings.columns')}
          data={['2', '3']}
          value={String(block.columns.length)}
          allowDeselect={false}
          onChange={(v) => {
            const n = Number(v);
            if (n === block.columns.length) return;
            // Going down to two keeps the third column's blocks, appended to the second.
            const columns =
              n === 3 ? [...block.columns, { blocks: [] }] : [block.columns[0], { blocks: [...block.columns[1].blocks, ...block.columns[2].blocks] }];
            set({ columns }, 'columns');
          }}
        />
      );
  }
}

/** The selected block's settings; each change is one step of the undo history (typing in a field merges). */
export function BlockSettings({
  projectId,
  block,
  onChange,
}: {
  projectId: string;
  block: Block | null;
  onChange(id: string, patch: Partial<Block>, field: string): void;
}) {
  const { t } = useTranslation('editor');
  if (!block) {
    return (
      <Text size="sm" c="dimmed">
        {t('settings.none')}
      </Text>
    );
  }
  const set: Patch = (patch, field) => onChange(block.id, patch, field);
  return (
    <Stack gap="xs" aria-label={t('settings.region')} role="region">
      <Title order={3} size="h5">
        {t('blocks.block', { name: t(`blocks.name.${block.type}`) })}
      </Title>
      <TypeFields block={block} set={set} projectId={projectId} />
      <NumberField
        label={t('settings.padding')}
        min={0}
        max={80}
        placeholder={t('settings.defaultPadding')}
        value={block.padding}
        onChange={(padding) => set({ padding }, 'padding')}
      />
      <ColorField label={t('settings.background')} value={block.background} onChange={(background) => set({ background }, 'background')} />
    </Stack>
  );
}
