import { Anchor, Badge, Button, Group, List, Paper, Progress, Stack, Text, ThemeIcon, Title } from '@mantine/core';
import { Link } from 'react-router';
import { useSetupState } from '../api/hooks/setupState';
import { useCurrentProject } from '../api/project';
import { ErrorState, Loading } from '../components/States';
import { NewKeys } from './ApiKeys';
import { useTranslation } from 'react-i18next';

/** The project's setup checklist (GET /projects/:id/setup-state), each item linking to where it gets done. */
export default function Overview() {
  const { t } = useTranslation('home');
  const { projectId, project } = useCurrentProject();
  const state = useSetupState(projectId);
  const to = (path: string) => `/p/${projectId}/${path}`;
  return (
    <Stack>
      <Title order={1} size="h2">
        {t('heading')}
      </Title>
      {/* Someone else put this person here (docs/roles.md "Added, and told"): say who. */}
      {project?.addedBy ? <Text c="dimmed">{t('addedBy', { name: project.addedBy })}</Text> : null}
      <NewKeys projectId={projectId} />
      {state.isPending ? <Loading /> : null}
      {state.error ? <ErrorState error={state.error} /> : null}
      {state.data ? (
        <Paper withBorder p="md">
          <Group justify="space-between" mb="sm">
            <Text fw={600}>{t('checklist')}</Text>
            <Badge color={state.data.done ? 'green' : 'gray'}>{t('doneCount', { completed: state.data.completed, total: state.data.total })}</Badge>
          </Group>
          <Progress value={(100 * state.data.completed) / state.data.total} mb="md" aria-label={t('progress')} />
          <List spacing="sm" listStyleType="none" aria-label={t('checklist')}>
            {[
              { done: state.data.hasDomain, label: t('item.domain'), path: 'domains' },
              { done: state.data.hasVerifiedDomain, label: t('item.verifiedDomain'), path: 'domains' },
              { done: state.data.hasContact, label: t('item.contact'), path: 'contacts' },
              { done: state.data.hasTemplate, label: t('item.template'), path: 'templates' },
              { done: state.data.hasTrackedEvent, label: t('item.event'), path: 'activity' },
              { done: state.data.hasSentEmail, label: t('item.email'), path: 'keys' },
            ].map((item) => (
              <List.Item
                key={item.label}
                icon={
                  <ThemeIcon color={item.done ? 'green' : 'gray'} size={20} radius="xl" aria-hidden>
                    {item.done ? '✓' : ''}
                  </ThemeIcon>
                }
              >
                <Anchor component={Link} to={to(item.path)}>
                  {item.label}
                </Anchor>{' '}
                <Text span size="sm" c="dimmed">
                  {item.done ? t('done') : t('todo')}
                </Text>
              </List.Item>
            ))}
          </List>
        </Paper>
      ) : null}
      <Button component={Link} to={to('keys')} variant="light" w="fit-content">
        {t('seeKeys')}
      </Button>
    </Stack>
  );
}
