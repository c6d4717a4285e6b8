import { useEffect, useState } from 'react';
import { Anchor, Badge, Button, Code, Group, Paper, SegmentedControl, Stack, Switch, Text, TextInput, Title } from '@mantine/core';
import { Link, useNavigate, useParams } from 'react-router';
import { ApiError } from '../api/client';
import { useSaveSegment, useSegment } from '../api/hooks/segments';
import { useCurrentProject } from '../api/project';
import { conditionErrors, FilterBuilder, newTree, type FilterTree } from '../components/FilterBuilder';
import { ErrorState, Loading } from '../components/States';
import { Segment, Members, StaticMembers } from '../components/segments/SegmentMembers';
import { Recount, DeleteSegment } from '../components/segments/SegmentActions';
import { Trans, useTranslation } from 'react-i18next';

/**
 * The segment routes answer validation failures with a flat `{ error }` sentence naming its field
 * ("Name is required", "condition.groups.0.filters.1.value: …"): matched to the input it names.
 */
function formErrors(error: unknown) {
  const message = error instanceof ApiError ? error.message : '';
  const name = /^Name\b/.test(message) ? message : undefined;
  const description = /^Description\b/.test(message) ? message : undefined;
  const condition = conditionErrors(error);
  const other = error && !name && !description && !Object.keys(condition).length ? error : null;
  return { name, description, condition, other };
}

/** The form of a new segment (POST) or an existing one (PATCH of the changed fields only). */
function SegmentForm({ projectId, segment }: { projectId: string; segment?: Segment }) {
  const { t } = useTranslation('data');
  const navigate = useNavigate();
  const [name, setName] = useState(segment?.name ?? '');
  const [description, setDescription] = useState(segment?.description ?? '');
  const [type, setType] = useState<'DYNAMIC' | 'STATIC'>(segment?.type ?? 'DYNAMIC');
  const [track, setTrack] = useState(segment?.trackMembership ?? false);
  const initialTree = (segment?.condition as FilterTree | null) ?? newTree();
  const [tree, setTree] = useState<FilterTree>(initialTree);
  const [savedTree, setSavedTree] = useState(JSON.stringify(initialTree));
  const [saved, setSaved] = useState(false);
  const changes = segment
    ? {
        ...(name !== segment.name ? { name } : {}),
        ...(description !== (segment.description ?? '') ? { description: description.trim() || null } : {}),
        ...(track !== segment.trackMembership ? { trackMembership: track } : {}),
        ...(segment.type === 'DYNAMIC' && JSON.stringify(tree) !== savedTree ? { condition: tree } : {}),
      }
    : {};
  const save = useSaveSegment(projectId, {
    meta: { success: t('segment.savedToast') },
    onSuccess: (s) => {
      if (!segment) void navigate(`/p/${projectId}/segments/${s.id}`, { replace: true });
      else {
        setSavedTree(JSON.stringify(tree));
        setSaved(true);
      }
    },
  });
  useEffect(() => setSaved(false), [name, description, track, tree]);
  const errs = formErrors(save.error);
  // A save's condition errors name the tree as it was sent: shown until it changes.
  const [errorsFor, setErrorsFor] = useState('');
  useEffect(() => {
    if (save.error) setErrorsFor(JSON.stringify(tree));
    // biome-ignore lint/correctness/useExhaustiveDependencies: only when a save fails
  }, [save.error]);
  const conditionErrs = errorsFor === JSON.stringify(tree) ? errs.condition : {};
  const dynamic = (segment?.type ?? type) === 'DYNAMIC';
  return (
    <form
      onSubmit={(e) => {
        e.preventDefault();
        save.mutate(
          segment
            ? { id: segment.id, changes }
            : {
                create: {
                  name,
                  description: description.trim() || null,
                  type,
                  trackMembership: type === 'DYNAMIC' ? track : false,
                  ...(type === 'DYNAMIC' ? { condition: tree } : {}),
                },
              },
        );
      }}
      noValidate
    >
      <Stack>
        <Group align="flex-start" grow preventGrowOverflow={false} wrap="wrap">
          <TextInput label={t('segment.name')} required value={name} onChange={(e) => setName(e.currentTarget.value)} error={errs.name} miw={240} />
          <TextInput
            label={t('segment.description')}
            value={description}
            onChange={(e) => setDescription(e.currentTarget.value)}
            error={errs.description}
            miw={240}
          />
        </Group>
        {segment ? (
          <Group gap="xs">
            <Badge variant="light" color={segment.type === 'DYNAMIC' ? 'blue' : 'gray'}>
              {t(`segments.types.${segment.type}`)}
            </Badge>
            <Text size="sm" c="dimmed">
              <Trans
                t={t}
                i18nKey="segment.events"
                values={{ entry: `segment.${segment.slug}.entry`, exit: `segment.${segment.slug}.exit` }}
                components={{ entry: <Code />, exit: <Code /> }}
              />
            </Text>
          </Group>
        ) : (
          <Stack gap={4}>
            <Text size="sm" fw={500} id="segment-type-label">
              {t('segment.type')}
            </Text>
            <SegmentedControl
              aria-labelledby="segment-type-label"
              value={type}
              onChange={(v) => setType(v as 'DYNAMIC' | 'STATIC')}
              data={[
                { value: 'DYNAMIC', label: t('segment.dynamic') },
                { value: 'STATIC', label: t('segment.static') },
              ]}
              w="fit-content"
            />
          </Stack>
        )}
        {dynamic ? (
          <>
            <Switch label={t('segment.track')} description={t('segment.trackHint')} checked={track} onChange={(e) => setTrack(e.currentTarget.checked)} />
            <Title order={2} size="h4">
              {t('segment.condition')}
            </Title>
            <FilterBuilder projectId={projectId} value={tree} onChange={setTree} errors={conditionErrs} />
          </>
        ) : null}
        {errs.other ? <ErrorState error={errs.other} title={t('segment.notSaved')} /> : null}
        <Group justify="flex-end">
          {saved ? (
            <Text size="sm" c="green" role="status">
              {t('segment.saved')}
            </Text>
          ) : null}
          <Button type="submit" loading={save.isPending} disabled={!!segment && !Object.keys(changes).length}>
            {segment ? t('segment.save') : t('segment.create')}
          </Button>
        </Group>
      </Stack>
    </form>
  );
}

/** /segments/new and /segments/:segmentId: the form, then (saved) members, recounts and delete. */
export default function SegmentEditor() {
  const { t } = useTranslation('data');
  const { projectId } = useCurrentProject();
  const { segmentId } = useParams();
  const segment = useSegment(projectId, segmentId);
  return (
    <Stack>
      <Anchor component={Link} to={`/p/${projectId}/segments`} size="sm">
        {t('segment.back')}
      </Anchor>
      {!segmentId ? (
        <>
          <Title order={1} size="h2">
            {t('segment.newSegment')}
          </Title>
          <Paper withBorder p="md">
            <SegmentForm projectId={projectId} />
          </Paper>
        </>
      ) : segment.isPending ? (
        <Loading />
      ) : segment.error ? (
        <ErrorState error={segment.error} />
      ) : (
        <>
          <Group justify="space-between">
            <Title order={1} size="h2">
              {segment.data.name}
            </Title>
            <DeleteSegment projectId={projectId} segment={segment.data} />
          </Group>
          <Recount projectId={projectId} segment={segment.data} />
          <Paper withBorder p="md">
            <SegmentForm key={segment.data.id} projectId={projectId} segment={segment.data} />
          </Paper>
          {segment.data.type === 'STATIC' ? <StaticMembers projectId={projectId} segment={segment.data} /> : null}
          <Members projectId={projectId} segment={segment.data} />
        </>
      )}
    </Stack>
  );
}
