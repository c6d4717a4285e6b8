import { useState, type ReactNode } from 'react';
import { Box, Code, Group, Paper, SegmentedControl, Stack, Switch, Tabs, Text, Title } from '@mantine/core';
import type { Preview } from '../../api/emailEditor';
import { ErrorState, Loading } from '../States';
import { darkened } from './darkMode';
import { useTranslation } from 'react-i18next';

const MOBILE = 375;

/**
 * The preview pane: the server's compiled HTML (POST /templates/preview) in an iframe titled "Preview"
 * with an empty sandbox (no scripts, an opaque origin), at "Desktop" or "Mobile" (375 px) width, in
 * "Dark mode" if asked, and the text part in its tab. `children` are the pane's inputs (Preview as, data).
 */
export function EditorPreview({
  preview,
  error,
  fetching,
  height = 560,
  children,
}: {
  preview: Preview | undefined;
  error: unknown;
  fetching: boolean;
  height?: number;
  children?: ReactNode;
}) {
  const { t } = useTranslation('editor');
  const [width, setWidth] = useState<'desktop' | 'mobile'>('desktop');
  const [dark, setDark] = useState(false);
  return (
    <Paper withBorder p="md" component="section" aria-label={t('preview.heading')}>
      <Stack gap="sm">
        <Group justify="space-between">
          <Title order={2} size="h4">
            {t('preview.heading')}
          </Title>
          {fetching ? (
            <Text size="xs" c="dimmed" role="status">
              {t('preview.rendering')}
            </Text>
          ) : null}
        </Group>
        {children}
        <Group justify="space-between">
          <SegmentedControl
            size="xs"
            aria-label={t('preview.width')}
            value={width}
            onChange={(v) => setWidth(v as 'desktop' | 'mobile')}
            data={[
              { value: 'desktop', label: t('preview.desktop') },
              { value: 'mobile', label: t('preview.mobile') },
            ]}
          />
          <Switch label={t('preview.darkMode')} checked={dark} onChange={(e) => setDark(e.currentTarget.checked)} />
        </Group>
        {error ? <ErrorState error={error} title={t('preview.failed')} /> : null}
        {preview ? (
          <>
            <Text size="sm">
              <Text span fw={600}>
                {t('preview.subject')}
              </Text>{' '}
              <span data-testid="preview-subject">{preview.subject}</span>
            </Text>
            <Tabs defaultValue="html">
              <Tabs.List>
                <Tabs.Tab value="html">{t('preview.email')}</Tabs.Tab>
                <Tabs.Tab value="text">{t('preview.plainText')}</Tabs.Tab>
              </Tabs.List>
              <Tabs.Panel value="html" pt="xs">
                <Box style={{ display: 'flex', justifyContent: 'center', background: dark ? '#1a1b1e' : undefined }}>
                  <Box
                    component="iframe"
                    title={t('preview.frame')}
                    sandbox=""
                    srcDoc={dark ? darkened(preview.html) : preview.html}
                    referrerPolicy="no-referrer"
                    w={width === 'mobile' ? MOBILE : '100%'}
                    h={height}
                    data-width={width}
                    style={{ border: '1px solid var(--mantine-color-default-border)', borderRadius: 4, background: 'white' }}
                  />
                </Box>
              </Tabs.Panel>
              <Tabs.Panel value="text" pt="xs">
                <Code block data-testid="preview-text" style={{ whiteSpace: 'pre-wrap', maxHeight: height, overflow: 'auto' }}>
                  {preview.text}
                </Code>
              </Tabs.Panel>
            </Tabs>
          </>
        ) : !error ? (
          <Loading label={t('preview.rendering')} />
        ) : null}
      </Stack>
    </Paper>
  );
}
