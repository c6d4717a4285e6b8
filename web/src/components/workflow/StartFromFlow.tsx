import { Alert, Badge, Button, Group, Paper, SimpleGrid, Stack, Text, Title } from '@mantine/core';
import { useMutation, useQuery } from '@tanstack/react-query';
import { useNavigate } from 'react-router';
import { api, unwrap } from '../../api/client';
import { ErrorState, Loading } from '../States';

/**
 * "Start from a flow": the starters of GET /workflows/starters, each created disabled by
 * POST /workflows/starters/{key}, then opened in the editor, where its emails wait for a template.
 */
export function StartFromFlow({ projectId }: { projectId: string }) {
  const navigate = useNavigate();
  const starters = useQuery({
    queryKey: ['workflow-starters', projectId],
    queryFn: () => unwrap(api.GET('/workflows/starters')),
    staleTime: 300_000,
  });
  const create = useMutation({
    meta: { success: 'Workflow created' },
    mutationFn: (key: string) => unwrap(api.POST('/workflows/starters/{key}', { params: { path: { key } }, body: {} })),
    onSuccess: (w) => navigate(`/p/${projectId}/workflows/${w.id}`),
  });
  if (starters.isPending) return <Loading label="Loading the flows…" />;
  if (starters.error) return <ErrorState error={starters.error} />;
  return (
    <Stack>
      <Text size="sm" c="dimmed">
        The workflow is created disabled. Pick a template for each email, then enable it.
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
                  Starts on <code>{s.eventName}</code> · {s.steps.map((st) => st.name).join(' → ')}
                </Text>
              </div>
              <Group justify="space-between">
                <Badge variant="light" color="gray">
                  {s.templatesToPick === 1 ? '1 template to pick' : `${s.templatesToPick} templates to pick`}
                </Badge>
                <Button size="xs" onClick={() => create.mutate(s.key)} loading={create.isPending && create.variables === s.key} aria-label={`Use ${s.name}`}>
                  Use this flow
                </Button>
              </Group>
            </Stack>
          </Paper>
        ))}
      </SimpleGrid>
    </Stack>
  );
}
