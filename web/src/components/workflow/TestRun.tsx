import { Alert, Badge, Button, Checkbox, Group, List, Stack, Text } from '@mantine/core';
import { useMutation } from '@tanstack/react-query';
import { useState } from 'react';
import { api, unwrap } from '../../api/client';
import { useTestRun } from '../../api/hooks/workflows';
import { ACTIVE_STATUSES, STATUS_COLORS, type Workflow } from '../../api/workflows';
import { ContactPicker } from '../emailEditor/ContactPicker';
import { RawOutput } from './RawOutput';
import { useStepWords } from './useStepWords';
import { statusWords, stepStory } from './stepStory';
import { useTranslation } from 'react-i18next';

/**
 * "Test with a contact": POST /workflows/{id}/test for a contact picked by email, then the path the
 * run takes (GET …/executions/{executionId}, polled until it ends): each step visited, its status
 * and its output. Emails go to the signed-in person; waits last seconds; webhooks only when ticked.
 */
export function TestRun({ projectId, workflow }: { projectId: string; workflow: Workflow }) {
  const { t } = useTranslation('workflows');
  const words = useStepWords();
  const [contactId, setContactId] = useState<string | null>(null);
  const [callWebhooks, setCallWebhooks] = useState(false);
  const start = useMutation({
    meta: { success: t('test.started') },
    mutationFn: () => unwrap(api.POST('/workflows/{id}/test', { params: { path: { id: workflow.id } }, body: { contactId: contactId!, callWebhooks } })),
  });
  const executionId = start.data?.executionId;
  const run = useTestRun(projectId, workflow.id, executionId);
  const stepOf = (id: string) => workflow.steps.find((s) => s.id === id);
  const hasWebhook = workflow.steps.some((s) => s.type === 'WEBHOOK');

  return (
    <Stack>
      <Text size="sm" c="dimmed">
        {t('test.intro')}
      </Text>
      <ContactPicker
        projectId={projectId}
        value={contactId}
        onChange={setContactId}
        label={t('test.contact')}
        description={t('test.contactHint')}
        placeholder={t('test.contactPlaceholder')}
      />
      <Checkbox
        label={t('test.callWebhooks')}
        description={hasWebhook ? t('test.webhooksOff') : t('test.noWebhook')}
        checked={callWebhooks}
        onChange={(e) => setCallWebhooks(e.currentTarget.checked)}
      />
      {start.error ? (
        <Alert color="red" role="alert" title={t('test.notStarted')}>
          {start.error.message}
        </Alert>
      ) : null}
      <Group justify="flex-end">
        <Button onClick={() => start.mutate()} disabled={!contactId} loading={start.isPending || (!!run.data && ACTIVE_STATUSES.has(run.data.status))}>
          {t('test.start')}
        </Button>
      </Group>
      {start.data ? (
        <Stack gap="xs" component="section" aria-label={t('test.pathTaken')}>
          <Group gap="xs">
            <Text size="sm" fw={600}>
              {t('test.pathTaken')}
            </Text>
            {run.data ? (
              <Badge color={STATUS_COLORS[run.data.status] ?? 'gray'} data-testid="test-run-status">
                {statusWords(run.data.status)}
              </Badge>
            ) : null}
          </Group>
          <Text size="xs" c="dimmed">
            {t('test.emailsTo', { email: start.data.to })}
          </Text>
          {run.error ? <Alert color="red">{run.error.message}</Alert> : null}
          <List type="ordered" spacing="xs">
            {(run.data?.steps ?? []).map((s) => {
              const step = stepOf(s.stepId);
              return (
                <List.Item key={`${s.stepId}-${s.startedAt}`} data-step-id={s.stepId}>
                  <Group gap="xs">
                    <Text size="sm" fw={600}>
                      {step ? `${words.title(step.type, step.title)}: ${words.stepName(step)}` : s.type}
                    </Text>
                    <Badge size="sm" variant="light" color={STATUS_COLORS[s.status] ?? 'gray'}>
                      {statusWords(s.status)}
                    </Badge>
                  </Group>
                  {step?.summary ? (
                    <Text size="xs" c="dimmed">
                      {step.summary}
                    </Text>
                  ) : null}
                  <Text size="sm" data-story>
                    {stepStory(s)}
                  </Text>
                  {s.output !== null && s.output !== undefined ? <RawOutput name={step ? words.stepName(step) : s.type} output={s.output} /> : null}
                </List.Item>
              );
            })}
          </List>
          {run.data?.error ? <Alert color="red">{run.data.error}</Alert> : null}
        </Stack>
      ) : null}
    </Stack>
  );
}
