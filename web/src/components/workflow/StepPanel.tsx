import { Alert, Button, Group, Paper, Select, Stack, Text, TextInput, Title } from '@mantine/core';
import { useMutation } from '@tanstack/react-query';
import { useEffect, useRef, useState } from 'react';
import { api, fieldError, unwrap } from '../../api/client';
import { configErrors, initialValue, type JsonSchema, type Step, type StepType, type Workflow } from '../../api/workflows';
import { ConfigForm } from './ConfigForm';
import { useStepWords } from './useStepWords';
import type { CanvasProblem } from './canvasTypes';
import { useTranslation } from 'react-i18next';

/**
 * Edits one step (or creates one, with `step` absent): its name, its config through the form
 * generated from its type's JSON Schema, and where each of its branches leads. Saves through the
 * API, whose 422 shows on the config fields it names.
 */
export function StepPanel({
  projectId,
  workflow,
  stepType,
  step,
  after,
  problems,
  onDone,
  onChanged,
  onConnect,
  onDisconnect,
}: {
  projectId: string;
  workflow: Workflow;
  stepType: StepType;
  step?: Step;
  /** Where a new step goes in (on that branch of that step); absent: unconnected. */
  after?: { stepId: string; branch: string };
  problems: CanvasProblem[];
  onDone: (stepId: string | null) => void;
  onChanged: () => Promise<unknown>;
  onConnect: (from: string, to: string, branch: string) => Promise<unknown>;
  onDisconnect: (transitionIds: string[]) => Promise<unknown>;
}) {
  const { t } = useTranslation(['workflows', 'common']);
  const schema = stepType.configSchema as JsonSchema;
  const words = useStepWords();
  // A step still named by its type's title shows that title in the person's language; saved
  // unchanged, it keeps the name it had (a new one, the server's title), so each reader sees it in theirs.
  const shownName = step ? words.stepName(step) : words.title(stepType.type, stepType.title);
  const [name, setName] = useState(shownName);
  const savedName = name === shownName ? (step?.name ?? stepType.title) : name;
  const [config, setConfig] = useState<Record<string, unknown>>(
    () => (step?.config as Record<string, unknown>) ?? (initialValue(schema) as Record<string, unknown>) ?? {},
  );
  const path = { params: { path: { id: workflow.id } } };
  // A new step is picked from the palette below: bring its form into view.
  const panel = useRef<HTMLElement>(null);
  useEffect(() => {
    if (!step) panel.current?.scrollIntoView({ block: 'center' });
  }, [step]);

  const save = useMutation({
    meta: { success: t('step.saved') },
    mutationFn: async () => {
      if (step)
        return unwrap(
          api.PATCH('/workflows/{id}/steps/{stepId}', { params: { path: { id: workflow.id, stepId: step.id } }, body: { name: savedName, config } }),
        );
      return unwrap(
        api.POST('/workflows/{id}/steps', {
          ...path,
          // The document's enum is the product's registry; the server may run more types (GET /workflows/step-types lists them).
          body: { type: stepType.type as never, name: savedName, config, ...(after ? { after } : {}) },
        }),
      );
    },
    onSuccess: async (saved) => {
      await onChanged();
      onDone(saved.id);
    },
  });
  const remove = useMutation({
    meta: { success: t('step.removed') },
    mutationFn: () =>
      unwrap(api.DELETE('/workflows/{id}/steps/{stepId}', { params: { path: { id: workflow.id, stepId: step!.id }, query: { splice: 'true' } } })),
    onSuccess: async () => {
      await onChanged();
      onDone(null);
    },
  });

  const errors = configErrors(save.error);
  const isTrigger = stepType.internal;
  // Nothing leads into the trigger (the API refuses it), nor from a step to itself.
  const targets = workflow.steps.filter((s) => s.id !== step?.id && s.id !== workflow.steps[0]?.id);
  const label = step ? shownName : t('step.newStepOf', { title: words.title(stepType.type, stepType.title) });

  return (
    <Paper ref={panel} withBorder p="md" component="section" aria-label={step ? t('step.stepNamed', { name: shownName }) : t('step.newStep')}>
      <Stack gap="sm">
        <Title order={2} size="h4">
          {label}
        </Title>
        <Text size="xs" c="dimmed" lineClamp={3}>
          {words.description(stepType.type, stepType.description)}
        </Text>
        {problems.length ? (
          <Alert color="red" title={t('step.problems')} role="alert">
            {problems.map((p) => (
              <Text key={p.field + p.message} size="sm">
                {p.message}
              </Text>
            ))}
          </Alert>
        ) : null}
        <TextInput label={t('step.name')} required value={name} onChange={(e) => setName(e.currentTarget.value)} error={fieldError(save.error, 'name')} />
        <ConfigForm projectId={projectId} schema={schema} value={config} onChange={setConfig} errors={errors} />
        {save.error && !Object.keys(errors).length && !fieldError(save.error, 'name') ? (
          <Alert color="red" role="alert">
            {save.error.message}
          </Alert>
        ) : null}
        <Group>
          <Button onClick={() => save.mutate()} loading={save.isPending}>
            {t('step.save')}
          </Button>
          <Button variant="default" onClick={() => onDone(null)}>
            {step ? t('common:close') : t('common:cancel')}
          </Button>
          {step && !isTrigger ? (
            <Button variant="subtle" color="red" onClick={() => remove.mutate()} loading={remove.isPending}>
              {t('step.delete')}
            </Button>
          ) : null}
        </Group>
        {step && !isTrigger ? (
          <Text size="xs" c="dimmed">
            {t('step.spliceHint')}
          </Text>
        ) : null}
        {remove.error ? (
          <Alert color="red" role="alert">
            {remove.error.message}
          </Alert>
        ) : null}
        {step?.branches.length ? (
          <Stack gap="xs">
            <Title order={3} size="h5">
              {t('step.branches')}
            </Title>
            <Text size="xs" c="dimmed">
              {t('step.branchesHint')}
            </Text>
            {step.branches.map((branch) => {
              const current = workflow.transitions.find((t) => t.fromStepId === step.id && t.branch === branch);
              return (
                <Select
                  key={branch}
                  label={t('step.leadsTo', { branch: words.branchLabel(branch) })}
                  placeholder={step.requiredBranches.includes(branch) ? t('step.required') : t('step.endsHere')}
                  data={targets.map((s) => ({ value: s.id, label: words.stepName(s) }))}
                  value={current?.toStepId ?? null}
                  clearable
                  onChange={async (to) => {
                    if (current) await onDisconnect([current.id]);
                    if (to) await onConnect(step.id, to, branch);
                  }}
                />
              );
            })}
          </Stack>
        ) : null}
      </Stack>
    </Paper>
  );
}
