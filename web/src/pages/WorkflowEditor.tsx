import { Alert, Anchor, Badge, Button, Grid, Group, Modal, Paper, Stack, Text, Title, UnstyledButton } from '@mantine/core';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useCallback, useEffect, useMemo, useState } from 'react';
import { Link, useParams } from 'react-router';
import { api, unwrap } from '../api/client';
import { keys } from '../api/queryKeys';
import { useWorkflow, useWorkflowStats, useWorkflowStepTypes } from '../api/hooks/workflows';
import { useCurrentProject } from '../api/project';
import { stepProblems, type StepType } from '../api/workflows';
import { ErrorState, Loading } from '../components/States';
import { StepPanel } from '../components/workflow/StepPanel';
import { StepIcon } from '../components/workflow/StepIcon';
import { WorkflowCanvas } from '../components/workflow/WorkflowCanvas';
import type { InsertPoint } from '../components/workflow/canvasTypes';
import { layoutGraph } from '../components/workflow/layout';
import { WorkflowVersions } from '../components/workflow/WorkflowVersions';
import { TestRun } from '../components/workflow/TestRun';
import { useStepWords } from '../components/workflow/useStepWords';
import { Trans, useTranslation } from 'react-i18next';

/**
 * The graph editor: the canvas (WorkflowCanvas, @xyflow/react, in this route's chunk only), the
 * palette of the registry's step types (GET /workflows/step-types), the selected step's panel with
 * its generated config form, and Enable / Disable, whose 422 is shown on the steps it names.
 */
export default function WorkflowEditor() {
  const { t } = useTranslation('workflows');
  const words = useStepWords();
  const { projectId } = useCurrentProject();
  const { workflowId = '' } = useParams();
  const qc = useQueryClient();
  const path = { params: { path: { id: workflowId } } };
  const key = keys.workflows.one(projectId, workflowId);
  const workflow = useWorkflow(projectId, workflowId);
  const types = useWorkflowStepTypes(projectId);
  // The nodes' numbers, kept fresh while the canvas is open.
  const stats = useWorkflowStats(projectId, workflowId);
  const statsByStep = useMemo(() => (stats.data ? Object.fromEntries(stats.data.steps.map((x) => [x.stepId, x])) : undefined), [stats.data]);
  const [selected, setSelected] = useState<string | null>(null);
  const [draft, setDraft] = useState<{ type: StepType; at?: InsertPoint } | null>(null);
  const [layout, setLayout] = useState<Record<string, { x: number; y: number }>>({});
  const [testing, setTesting] = useState(false);
  const graph = workflow.data;
  useEffect(() => {
    if (graph) void layoutGraph(graph).then(setLayout);
  }, [graph]);
  const onAdd = useCallback((at: InsertPoint, type: StepType) => {
    setDraft({ type, at });
    setSelected(null);
  }, []);
  const refresh = () => qc.invalidateQueries({ queryKey: key });

  const toggle = useMutation({
    meta: { success: (_d, enabled) => (enabled ? t('editor.enabledToast') : t('editor.disabledToast')) },
    mutationFn: (enabled: boolean) => unwrap(api.PATCH('/workflows/{id}', { ...path, body: { enabled } })),
    onSuccess: (w) => {
      qc.setQueryData(key, w);
      void qc.invalidateQueries({ queryKey: keys.workflows.all(projectId) });
    },
  });
  const connect = useMutation({
    mutationFn: (t: { from: string; to: string; branch: string }) =>
      unwrap(api.POST('/workflows/{id}/transitions', { ...path, body: { fromStepId: t.from, toStepId: t.to, branch: t.branch } })),
    onSettled: refresh,
  });
  const disconnect = useMutation({
    mutationFn: (ids: string[]) =>
      Promise.all(
        ids.map((transitionId) => unwrap(api.DELETE('/workflows/{id}/transitions/{transitionId}', { params: { path: { id: workflowId, transitionId } } }))),
      ),
    onSettled: refresh,
  });
  const move = useMutation({
    mutationFn: (m: { stepId: string; position: { x: number; y: number } }) =>
      unwrap(api.PATCH('/workflows/{id}/steps/{stepId}', { params: { path: { id: workflowId, stepId: m.stepId } }, body: { position: m.position } })),
    onSettled: refresh,
  });
  // Hand-placed positions go; every step is laid out by elk again.
  const tidy = useMutation({
    mutationFn: () =>
      Promise.all(
        (workflow.data?.steps ?? [])
          .filter((st) => st.position)
          .map((st) => unwrap(api.PATCH('/workflows/{id}/steps/{stepId}', { params: { path: { id: workflowId, stepId: st.id } }, body: { position: null } }))),
      ),
    onSettled: refresh,
  });
  const removeStep = useMutation({
    meta: { success: t('step.removed') },
    mutationFn: (stepId: string) =>
      unwrap(api.DELETE('/workflows/{id}/steps/{stepId}', { params: { path: { id: workflowId, stepId }, query: { splice: 'true' } } })),
    onSuccess: () => setSelected(null),
    onSettled: refresh,
  });

  const problems = useMemo(() => stepProblems(toggle.error), [toggle.error]);
  if (workflow.isPending || types.isPending) return <Loading label={t('editor.loading')} />;
  if (workflow.error) return <ErrorState error={workflow.error} />;
  if (types.error) return <ErrorState error={types.error} title={t('editor.typesNotLoaded')} />;
  const w = workflow.data;
  const typeOf = (type: string) => types.data.find((t) => t.type === type);
  const selectedStep = w.steps.find((s) => s.id === selected);
  const palette = types.data.filter((t) => !t.internal);
  const categories = [...new Set(palette.map((t) => t.category))];
  // With a step selected, a type picked in the palette goes in after it (on its first branch).
  const pick = (t: StepType) => {
    const after = selectedStep?.branches[0];
    setDraft({ type: t, at: selectedStep && after ? { stepId: selectedStep.id, branch: after } : undefined });
    setSelected(null);
  };
  const graphError = connect.error ?? disconnect.error ?? move.error ?? removeStep.error ?? tidy.error;

  return (
    <Stack>
      <Group justify="space-between" align="flex-start">
        <div>
          <Anchor component={Link} to={`/p/${projectId}/workflows`} size="sm">
            {t('editor.back')}
          </Anchor>
          <Group gap="sm">
            <Title order={1} size="h2">
              {w.name}
            </Title>
            <Badge color={w.enabled ? 'green' : 'gray'} data-testid="workflow-state">
              {w.enabled ? t('enabled') : t('disabled')}
            </Badge>
          </Group>
          <Text size="sm" c="dimmed">
            <Trans t={t} i18nKey="editor.intro" values={{ event: w.triggerConfig.eventName }} components={{ b: <b /> }} />
          </Text>
        </div>
        <Group>
          <WorkflowVersions projectId={projectId} workflowId={w.id} enabled={w.enabled} onRestored={refresh} />
          <Button variant="default" onClick={() => tidy.mutate()} loading={tidy.isPending}>
            {t('editor.tidy')}
          </Button>
          <Button variant="default" onClick={() => setTesting(true)}>
            {t('editor.test')}
          </Button>
          <Button component={Link} to={`/p/${projectId}/workflows/${w.id}/executions`} variant="default">
            {t('editor.executions')}
          </Button>
          {w.enabled ? (
            <Button color="gray" onClick={() => toggle.mutate(false)} loading={toggle.isPending}>
              {t('editor.disable')}
            </Button>
          ) : (
            <Button color="green" onClick={() => toggle.mutate(true)} loading={toggle.isPending}>
              {t('editor.enable')}
            </Button>
          )}
        </Group>
      </Group>
      <Modal opened={testing} onClose={() => setTesting(false)} title={t('editor.test')} size="lg">
        {testing ? <TestRun projectId={projectId} workflow={w} /> : null}
      </Modal>
      {toggle.error ? (
        <Alert color="red" role="alert" title={t('editor.notEnabled')}>
          {toggle.error.message}
          {Object.keys(problems).length ? <Text size="sm">{t('editor.stepsMarked')}</Text> : null}
        </Alert>
      ) : null}
      {graphError ? (
        <Alert color="red" role="alert" title={t('editor.graphNotChanged')}>
          {graphError.message}
        </Alert>
      ) : null}
      <Grid>
        <Grid.Col span={{ base: 12, md: 8 }}>
          <Paper withBorder>
            <WorkflowCanvas
              workflow={w}
              problems={problems}
              selectedId={selected}
              onSelect={(id) => {
                setSelected(id);
                if (id) setDraft(null);
              }}
              onMove={(stepId, position) => move.mutate({ stepId, position })}
              onConnect={(from, to, branch) => connect.mutate({ from, to, branch })}
              onDisconnect={(ids) => disconnect.mutate(ids)}
              onDeleteStep={(stepId) => removeStep.mutate(stepId)}
              types={types.data}
              onAdd={onAdd}
              layout={layout}
              stats={statsByStep}
            />
          </Paper>
        </Grid.Col>
        <Grid.Col span={{ base: 12, md: 4 }}>
          <Stack>
            {draft ? (
              <StepPanel
                key={`new-${draft.type.type}-${draft.at?.stepId}-${draft.at?.branch}`}
                projectId={projectId}
                workflow={w}
                stepType={draft.type}
                after={draft.at}
                problems={[]}
                onChanged={refresh}
                onDone={(id) => {
                  setDraft(null);
                  setSelected(id);
                }}
                onConnect={(from, to, branch) => connect.mutateAsync({ from, to, branch })}
                onDisconnect={(ids) => disconnect.mutateAsync(ids)}
              />
            ) : selectedStep && typeOf(selectedStep.type) ? (
              <StepPanel
                key={selectedStep.id}
                projectId={projectId}
                workflow={w}
                stepType={typeOf(selectedStep.type)!}
                step={selectedStep}
                problems={problems[selectedStep.id] ?? []}
                onChanged={refresh}
                onDone={setSelected}
                onConnect={(from, to, branch) => connect.mutateAsync({ from, to, branch })}
                onDisconnect={(ids) => disconnect.mutateAsync(ids)}
              />
            ) : null}
            <Paper withBorder p="md" component="section" aria-label={t('editor.stepTypes')}>
              <Title order={2} size="h4" mb="xs">
                {t('editor.stepTypes')}
              </Title>
              <Text size="xs" c="dimmed" mb="sm">
                {t('editor.stepTypesHint')}
              </Text>
              <Stack gap="sm">
                {categories.map((c) => (
                  <Stack key={c} gap={6} role="group" aria-label={words.category(c)}>
                    <Text size="xs" fw={700} c="dimmed" tt="uppercase">
                      {words.category(c)}
                    </Text>
                    {palette
                      .filter((t) => t.category === c)
                      .map((t) => (
                        // The button is named by what it shows (its title); the description below it
                        // describes it, and a click anywhere on the card picks the type too.
                        // biome-ignore lint/a11y/useKeyWithClickEvents lint/a11y/noStaticElementInteractions: the button inside is the keyboard's way in
                        <div
                          key={t.type}
                          onClick={() => pick(t)}
                          style={{
                            padding: 6,
                            cursor: 'pointer',
                            borderRadius: 4,
                            border: '1px solid var(--mantine-color-gray-3)',
                            background: draft?.type.type === t.type ? 'var(--mantine-color-blue-0)' : undefined,
                          }}
                        >
                          <UnstyledButton aria-pressed={draft?.type.type === t.type} aria-describedby={`step-type-${t.type}`} data-step-type={t.type}>
                            <Text size="sm" fw={600} span>
                              <StepIcon name={t.icon} /> {words.title(t.type, t.title)}
                            </Text>
                          </UnstyledButton>
                          <Text size="xs" c="dimmed" lineClamp={2} id={`step-type-${t.type}`}>
                            {words.description(t.type, t.description)}
                          </Text>
                        </div>
                      ))}
                  </Stack>
                ))}
              </Stack>
            </Paper>
          </Stack>
        </Grid.Col>
      </Grid>
    </Stack>
  );
}
