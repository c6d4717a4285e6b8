import { useEffect, useState } from 'react';
import { Button, Group, Paper } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { FilterBuilder, newTree, type FilterTree } from '../FilterBuilder';

/**
 * The list's filter: the FilterBuilder on a draft, applied with "Apply filter" (a half-typed
 * condition would otherwise refuse the list at every keystroke), dropped with "Clear filter".
 */
export function FilterPanel({ projectId, applied, onApply }: { projectId: string; applied: FilterTree | null; onApply: (tree: FilterTree | null) => void }) {
  const { t } = useTranslation('contacts');
  const [draft, setDraft] = useState<FilterTree>(applied ?? newTree());
  // A view opened from the side brings its own filter.
  useEffect(() => setDraft(applied ?? newTree()), [applied]);
  return (
    <Paper withBorder p="sm" component="section" aria-label={t('filter.label')}>
      <FilterBuilder projectId={projectId} value={draft} onChange={setDraft} liveCount={false} />
      <Group justify="flex-end" mt="sm" gap="xs">
        <Button variant="default" size="xs" disabled={!applied} onClick={() => onApply(null)}>
          {t('filter.clear')}
        </Button>
        <Button size="xs" onClick={() => onApply(draft)}>
          {t('filter.apply')}
        </Button>
      </Group>
    </Paper>
  );
}
