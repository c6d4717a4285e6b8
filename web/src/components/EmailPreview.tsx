import { Box, Code, Group, Paper, Stack, Tabs, Text, Title } from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { useContentPreview } from '../api/hooks/templates';
import { ErrorState, Loading } from './States';
import type { EmailDocument } from '../api/emailEditor';
import { useTranslation } from 'react-i18next';

/**
 * The server's rendering of a subject, HTML body and text part (POST /templates/preview, the renderer
 * sends use), 400 ms after the last change: the HTML in an `iframe` titled "Preview" with an empty
 * sandbox (no scripts, an opaque origin), the text part in a tab. The template editor's preview, for
 * content that is not a template (a campaign's own).
 */
export function EmailPreview({
  projectId,
  subject,
  body,
  document,
  text,
}: {
  projectId: string;
  subject: string;
  body: string;
  /** A block document: compiled by the server, then rendered (the body is ignored). */
  document?: EmailDocument | null;
  text: string | null;
}) {
  const { t } = useTranslation('editor');
  const content = document ? { subject, editor: 'blocks' as const, document, text } : { subject, editor: 'html' as const, body, text };
  const [debounced] = useDebouncedValue(content, 400);
  const ready = !!debounced.subject && (debounced.editor === 'blocks' || !!debounced.body);
  const preview = useContentPreview(projectId, debounced, ready);
  return (
    <Paper withBorder p="md">
      <Stack gap="sm">
        <Group justify="space-between">
          <Title order={2} size="h4">
            {t('preview.heading')}
          </Title>
          {preview.isFetching ? (
            <Text size="xs" c="dimmed" role="status">
              {t('preview.rendering')}
            </Text>
          ) : null}
        </Group>
        <Text size="sm" c="dimmed">
          {t('preview.withoutContact')}
        </Text>
        {preview.error ? <ErrorState error={preview.error} title={t('preview.failed')} /> : null}
        {preview.data ? (
          <RenderedEmail rendered={preview.data} height={420} />
        ) : preview.isPending && ready ? (
          <Loading label={t('preview.rendering')} />
        ) : (
          <Text size="sm" c="dimmed">
            {t('preview.empty')}
          </Text>
        )}
      </Stack>
    </Paper>
  );
}

/**
 * One rendering of the server's (POST /templates/preview): the subject, the HTML in an `iframe` titled
 * "Preview" with an empty sandbox (no scripts, an opaque origin), the text part in a tab (when given). Shared by the
 * template editor, this component and a sent email's content (components/contact/EmailContentDialog).
 */
export function RenderedEmail({ rendered, height }: { rendered: { subject: string; html: string; text?: string }; height: number }) {
  const { t } = useTranslation('editor');
  return (
    <>
      <Text size="sm">
        <Text span fw={600}>
          {t('preview.subject')}
        </Text>{' '}
        <span data-testid="preview-subject">{rendered.subject}</span>
      </Text>
      <Tabs defaultValue="html">
        <Tabs.List>
          <Tabs.Tab value="html">{t('preview.html')}</Tabs.Tab>
          {rendered.text !== undefined ? <Tabs.Tab value="text">{t('preview.plainText')}</Tabs.Tab> : null}
        </Tabs.List>
        <Tabs.Panel value="html" pt="xs">
          <Box
            component="iframe"
            title={t('preview.frame')}
            sandbox=""
            srcDoc={rendered.html}
            referrerPolicy="no-referrer"
            w="100%"
            h={height}
            style={{ border: '1px solid var(--mantine-color-default-border)', borderRadius: 4, background: 'white' }}
          />
        </Tabs.Panel>
        <Tabs.Panel value="text" pt="xs">
          <Code block data-testid="preview-text" style={{ whiteSpace: 'pre-wrap', maxHeight: height, overflow: 'auto' }}>
            {rendered.text}
          </Code>
        </Tabs.Panel>
      </Tabs>
    </>
  );
}
