import { Alert, Group, Loader, Paper, Stack, Text } from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { useTranslation } from 'react-i18next';
import { useFilterCount } from '../api/hooks/contacts';
import { useCountWords } from './CountText';
import { useFilterFields } from './filter/fields';
import { TreeEditor } from './filter/TreeEditor';
import { conditionErrors, type FilterTree } from './filter/tree';

export { useFilterFields } from './filter/fields';
export {
  conditionErrors,
  newFilter,
  newTree,
  type FilterCondition,
  type FilterGroup,
  type FilterLogic,
  type FilterOperator,
  type FilterTree,
  type FilterUnit,
} from './filter/tree';

/**
 * The filter tree editor (docs/api.md "Segments"; the tree's shape is filter/tree.ts, its parts the
 * other files of filter/): used by segments, campaign audiences and workflow CONDITION steps.
 *
 * Errors are keyed by node path relative to the tree (`groups.0.filters.1.operator`), as the API names
 * them after its `condition.` prefix: `conditionErrors()` turns an API error into that map.
 *
 * Edits `value`; with `projectId` it also shows the live count (POST /contacts/count, debounced 400 ms)
 * and the count's 422 on the nodes it names. `errors` (node paths, see conditionErrors) come from the
 * caller's own save; they show until the tree changes.
 */
export function FilterBuilder({
  projectId,
  value,
  onChange,
  errors: saveErrors,
  liveCount = true,
}: {
  projectId: string;
  value: FilterTree;
  onChange: (tree: FilterTree) => void;
  errors?: Record<string, string>;
  liveCount?: boolean;
}) {
  const { t } = useTranslation('data');
  const countWords = useCountWords();
  const fields = useFilterFields(projectId);
  const [debounced] = useDebouncedValue(value, 400);
  const key = JSON.stringify(debounced);
  const count = useFilterCount(projectId, debounced, { enabled: liveCount });
  const countErrors = count.error && !count.isPlaceholderData ? conditionErrors(count.error) : {};
  const errors = { ...countErrors, ...(saveErrors ?? {}) };
  const stale = key !== JSON.stringify(value) || count.isFetching;
  return (
    <Stack gap="sm">
      {fields.error ? (
        <Alert color="red" role="alert" title={t('filter.fieldsNotLoaded')}>
          {fields.error instanceof Error ? fields.error.message : String(fields.error)}
        </Alert>
      ) : null}
      <TreeEditor tree={value} path="" depth={1} options={fields.options} errors={errors} onChange={onChange} />
      {liveCount ? (
        <Paper withBorder p="sm" role="status" aria-label={t('filter.matchingContacts')} aria-live="polite" aria-busy={stale}>
          <Group gap="xs">
            {count.data ? (
              <Text fw={600} data-testid="matching-count" data-count={count.data.count} data-current={!stale && !count.error ? 'yes' : 'no'}>
                {t('filter.matching', { count: count.data.count, n: countWords(count.data.count, count.data.estimated) })}
              </Text>
            ) : null}
            {count.error ? (
              <Text size="sm" c="red">
                {Object.keys(countErrors).length ? t('filter.refused') : count.error instanceof Error ? count.error.message : t('filter.notCounted')}
              </Text>
            ) : null}
            {stale ? <Loader size="xs" aria-label={t('filter.counting')} /> : null}
          </Group>
        </Paper>
      ) : null}
    </Stack>
  );
}
