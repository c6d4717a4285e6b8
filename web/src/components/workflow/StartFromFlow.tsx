import { Alert, Badge, Button, Group, Paper, SimpleGrid, Stack, Text, Title } from '@mantine/core';
import { useMutation } from '@tanstack/react-query';
import { useNavigate } from 'react-router';
import { api, unwrap } from '../../api/client';
import { useWorkflowStarters } from '../../api/hooks/workflows';
import { ErrorState, Loading } from '../States';
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
    mutationFn: (key: string) => unwrap(api.POST('/workflows/starters/{key}', { params: { path: { key } }, body: {} })),
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
        {starters.data.data.map((s) => (
          <Paper key={s.key} withBorder p="md" component="section" aria-label={s.name}>
            <Stack gap="xs" h="100%" justify="space-between">
              <div>
                <Title order={3} size="h5">
                  {s.name}
                </Title>
                <Text size="sm">{s.description}</Text>
                <Text size="xs" c="dimmed" mt={4}>
                  {t('starters.startsOn', { event: s.eventName, steps: s.steps.map((st) => st.name).join(' → ') })}
                </Text>
              </div>
              <Group justify="space-between">
                <Badge variant="light" color="gray">
                  {s.templatesToPick === 1 ? t('starters.oneTemplate') : t('starters.templates', { n: s.templatesToPick })}
                </Badge>
                <Button
                  size="xs"
                  onClick={() => create.mutate(s.key)}
                  loading={create.isPending && create.variables === s.key}
                  aria-label={t('starters.useNamed', { name: s.name })}
                >
                  {t('starters.use')}
                </Button>
              </Group>
            </Stack>
          </Paper>
        ))}
      </SimpleGrid>
    </Stack>
  );
}
