import { Alert, Badge, Button, Group, Paper, SimpleGrid, Stack, Text, Title } from '@mantine/core';
import { useMutation } from '@tanstack/react-query';
import { useNavigate } from 'react-router';
import { api, unwrap } from '../../api/client';
import { useWorkflowStarters } from '../../api/hooks/workflows';
import { ErrorState, Loading } from '../States';
import { starterWords } from './starterWords';
import { useTranslation } from 'react-i18next';

/**
 * "Start from a flow": the starters of GET /workflows/starters, each created disabled by
 * POST /workflows/starters/{key}, then opened in the editor, where its emails wait for a template.
 */
export function StartFromFlow({ projectId }: { projectId: string }) {
  const { t } = useTranslation('workflows');
  const navigate = useNavigate();
  const starters = useWorkflowStarters(projectId);
  const create = useMutation({
    meta: { success: t('list.created') },
    // The workflow is named in the reader's language, as the gallery names its starter.
    mutationFn: ({ key, name }: { key: string; name: string }) => unwrap(api.POST('/workflows/starters/{key}', { params: { path: { key } }, body: { name } })),
    onSuccess: (w) => navigate(`/p/${projectId}/workflows/${w.id}`),
  });
  if (starters.isPending) return <Loading label={t('starters.loading')} />;
  if (starters.error) return <ErrorState error={starters.error} />;
  return (
    <Stack>
      <Text size="sm" c="dimmed">
        {t('starters.intro')}
      </Text>
      {create.error ? (
        <Alert color="red" role="alert">
          {create.error.message}
        </Alert>
      ) : null}
      <SimpleGrid cols={{ base: 1, sm: 2 }}>
        {starters.data.data.map((s) => {
          const words = starterWords(t, s);
          return (
            <Paper key={s.key} withBorder p="md" component="section" aria-label={words.name}>
              <Stack gap="xs" h="100%" justify="space-between">
                <div>
                  <Title order={3} size="h5">
                    {words.name}
                  </Title>
                  <Text size="sm">{words.description}</Text>
                  <Text size="xs" c="dimmed" mt={4}>
                    {t('starters.startsOn', { event: s.eventName, steps: words.steps.join(' → ') })}
                  </Text>
                </div>
                <Group justify="space-between">
                  <Badge variant="light" color="gray">
                    {s.templatesToPick === 1 ? t('starters.oneTemplate') : t('starters.templates', { n: s.templatesToPick })}
                  </Badge>
                  <Button
                    size="xs"
                    onClick={() => create.mutate({ key: s.key, name: words.name })}
                    loading={create.isPending && create.variables?.key === s.key}
                    aria-label={t('starters.useNamed', { name: words.name })}
                  >
                    {t('starters.use')}
                  </Button>
                </Group>
              </Stack>
            </Paper>
          );
        })}
      </SimpleGrid>
    </Stack>
  );
}
