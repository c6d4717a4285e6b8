import { Box, Text } from '@mantine/core';
import type { Block } from '../../api/emailEditor';
import { useTranslation } from 'react-i18next';

/**
 * The words of a block's markup, without the markup. DOMParser builds an inert document (no scripts
 * run, no images load), so whatever a text or HTML block holds never runs in the dashboard.
 */
export function plainOf(html: string): string {
  const doc = new DOMParser().parseFromString(html, 'text/html');
  return (doc.body.textContent ?? '').replace(/\s+/g, ' ').trim();
}

const short = (s: string, n = 140) => (s.length > n ? `${s.slice(0, n - 1)}…` : s);

/**
 * A block as the canvas shows it: close to the email (sizes, alignment, colours) but not the email
 * itself; the preview pane beside it is the server's compiled HTML.
 */
export function BlockSummary({ block }: { block: Block }) {
  const { t } = useTranslation('editor');
  const align = 'align' in block && block.align ? block.align : undefined;
  switch (block.type) {
    case 'heading':
      return (
        <Text fw={700} size={block.level === 1 ? 'xl' : block.level === 2 ? 'lg' : 'md'} ta={align} c={block.color}>
          {block.text || t('summary.emptyHeading')}
        </Text>
      );
    case 'text':
      return (
        <Text size="sm" ta={align} c={block.color} style={{ fontSize: block.fontSize }}>
          {short(plainOf(block.html)) || t('summary.emptyText')}
        </Text>
      );
    case 'button':
      return (
        <Box ta={align ?? 'center'}>
          <Box
            component="span"
            px="md"
            py={6}
            style={{
              display: 'inline-block',
              borderRadius: 4,
              background: block.color ?? 'var(--mantine-primary-color-filled)',
              color: block.textColor ?? 'white',
            }}
          >
            {block.text || t('summary.button')}
          </Box>
        </Box>
      );
    case 'image':
      return (
        <Text size="sm" c="dimmed" ta={align}>
          {block.src ? t('summary.image', { alt: short(block.alt || t('summary.noAlt'), 60) }) : t('summary.noSource')}
        </Text>
      );
    case 'divider':
      return (
        <Box
          component="hr"
          my={4}
          style={{ border: 0, borderTop: `${block.thickness ?? 1}px solid ${block.color ?? 'var(--mantine-color-default-border)'}` }}
        />
      );
    case 'spacer':
      return (
        <Text size="xs" c="dimmed" ta="center">
          {t('summary.space', { height: block.height })}
        </Text>
      );
    case 'social':
      return (
        <Text size="sm" ta={align}>
          {block.links.map((l) => t(`networks.${l.network}`)).join(' · ') || t('summary.noLinks')}
        </Text>
      );
    case 'html':
      return (
        <Text size="sm" ff="monospace" c="dimmed">
          {short(block.html, 100)}
        </Text>
      );
    case 'footer':
      return (
        <Text size="xs" c="dimmed" ta={align ?? 'center'}>
          {block.text ? `${short(block.text, 80)} · ` : ''}
          {block.viewInBrowser === false ? t('summary.footerNoView') : t('summary.footer')}
        </Text>
      );
    case 'columns':
      return null;
  }
}
