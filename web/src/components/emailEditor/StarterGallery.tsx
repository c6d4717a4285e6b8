import { Box, Card, SimpleGrid, Stack, Text, Title, UnstyledButton } from '@mantine/core';
import type { Starter } from '../../api/emailEditor';
import { useStarterPreview, useStarters } from '../../api/hooks/templates';
import { ErrorState, Loading } from '../States';
import { useTranslation } from 'react-i18next';
import { useStarterWords } from './useStarterWords';

/** A starter's thumbnail: its compiled HTML, scaled down, in a sandboxed iframe nobody can focus. */
function Thumbnail({ projectId, starter }: { projectId: string; starter: Starter }) {
  const { t } = useTranslation('editor');
  const words = useStarterWords();
  const rendered = useStarterPreview(projectId, starter);
  return (
    <Box h={150} style={{ overflow: 'hidden', position: 'relative', background: 'white', borderRadius: 4 }} aria-hidden>
      {rendered.data ? (
        <iframe
          title={t('starters.thumbnail', { name: words.name(starter) })}
          sandbox=""
          srcDoc={rendered.data.html}
          tabIndex={-1}
          style={{ width: 600, height: 600, border: 0, transform: 'scale(0.4)', transformOrigin: '0 0', pointerEvents: 'none' }}
        />
      ) : null}
    </Box>
  );
}

/** "Start from a template": the starters (GET /templates/starters); choosing one fills the blocks editor with it. */
export function StarterGallery({ projectId, onChoose }: { projectId: string; onChoose(starter: Starter): void }) {
  const { t } = useTranslation('editor');
  const words = useStarterWords();
  const starters = useStarters(projectId);
  return (
    <Stack gap="xs" component="section" aria-label={t('starters.heading')}>
      <Title order={2} size="h4">
        {t('starters.heading')}
      </Title>
      {starters.error ? <ErrorState error={starters.error} title={t('starters.failed')} /> : null}
      {starters.isPending ? <Loading /> : null}
      <SimpleGrid cols={{ base: 2, sm: 3, lg: 6 }} spacing="xs">
        {starters.data?.data.map((s) => (
          // The button is named by the starter's name, as shown; its description describes it, and a
          // click anywhere on the card chooses it too.
          <Card key={s.id} withBorder padding="xs" onClick={() => onChoose(s)} style={{ cursor: 'pointer' }}>
            <Card.Section>
              <Thumbnail projectId={projectId} starter={s} />
            </Card.Section>
            <UnstyledButton mt={4} aria-describedby={`starter-${s.id}`}>
              <Text size="sm" fw={600} span>
                {words.name(s)}
              </Text>
            </UnstyledButton>
            <Text size="xs" c="dimmed" lineClamp={2} id={`starter-${s.id}`}>
              {words.description(s)}
            </Text>
          </Card>
        ))}
      </SimpleGrid>
    </Stack>
  );
}
