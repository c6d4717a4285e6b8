import { Alert, Badge, Button, Group, Paper, SegmentedControl, Stack, Text } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import type { Errors, FieldOption } from './fields';
import { FilterRow } from './FilterRow';
import { type FilterGroup, type FilterLogic, type FilterTree, newFilter, newTree } from './tree';

const MAX_DEPTH = 5;

/** A tree's logic and groups, each group's filters and its nested tree (up to MAX_DEPTH levels). */
export function TreeEditor({
  tree,
  path,
  depth,
  options,
  errors,
  onChange,
  onRemove,
}: {
  tree: FilterTree;
  path: string;
  depth: number;
  options: FieldOption[];
  errors: Errors;
  onChange: (t: FilterTree) => void;
  onRemove?: () => void;
}) {
  const { t } = useTranslation('data');
  const at = (rest: string) => (path ? `${path}.${rest}` : rest);
  const word = tree.logic === 'AND' ? t('filter.and') : t('filter.or');
  const setGroup = (i: number, g: FilterGroup) => onChange({ ...tree, groups: tree.groups.map((x, j) => (j === i ? g : x)) });
  const removeGroup = (i: number) => onChange({ ...tree, groups: tree.groups.filter((_, j) => j !== i) });
  const treeError = errors[path] ?? errors[at('groups')] ?? errors[at('logic')];
  return (
    <Stack gap="xs" data-tree-path={path || '(root)'}>
      <Group gap="xs">
        <Text size="sm">{t('filter.match')}</Text>
        <SegmentedControl
          size="xs"
          aria-label={depth === 1 ? t('filter.logic') : t('filter.nestedLogic')}
          value={tree.logic}
          onChange={(v) => onChange({ ...tree, logic: v as FilterLogic })}
          data={[
            { value: 'AND', label: t('filter.all') },
            { value: 'OR', label: t('filter.any') },
          ]}
        />
        <Text size="sm">{t('filter.ofThese')}</Text>
        {onRemove ? (
          <Button size="compact-xs" variant="subtle" color="red" onClick={onRemove}>
            {t('filter.removeNested')}
          </Button>
        ) : null}
      </Group>
      {treeError ? (
        <Alert color="red" p="xs" role="alert">
          {treeError}
        </Alert>
      ) : null}
      {tree.groups.map((group, i) => {
        const gp = at(`groups.${i}`);
        const groupError = errors[gp] ?? errors[`${gp}.filters`];
        return (
          <Stack key={i} gap="xs">
            {i > 0 ? (
              <Badge variant="light" color="gray" tt="uppercase">
                {word}
              </Badge>
            ) : null}
            <Paper
              withBorder
              p="sm"
              component="fieldset"
              style={{ margin: 0 }}
              aria-label={path ? t('filter.groupOf', { n: i + 1, path }) : t('filter.group', { n: i + 1 })}
            >
              <Stack gap="xs">
                {group.filters.map((f, j) => (
                  <Stack key={j} gap={4}>
                    {j > 0 ? (
                      <Text size="xs" c="dimmed" tt="uppercase">
                        {word}
                      </Text>
                    ) : null}
                    <FilterRow
                      filter={f}
                      path={`${gp}.filters.${j}`}
                      options={options}
                      errors={errors}
                      onChange={(nf) => setGroup(i, { ...group, filters: group.filters.map((x, k) => (k === j ? nf : x)) })}
                      onRemove={() => setGroup(i, { ...group, filters: group.filters.filter((_, k) => k !== j) })}
                    />
                  </Stack>
                ))}
                {group.conditions ? (
                  <Paper withBorder p="sm" bg="var(--mantine-color-gray-0)">
                    <Text size="xs" c="dimmed" mb={4}>
                      {group.filters.length ? t('filter.andAlso') : ''}
                    </Text>
                    <TreeEditor
                      tree={group.conditions}
                      path={`${gp}.conditions`}
                      depth={depth + 1}
                      options={options}
                      errors={errors}
                      onChange={(c) => setGroup(i, { ...group, conditions: c })}
                      onRemove={() => setGroup(i, { filters: group.filters })}
                    />
                  </Paper>
                ) : null}
                {groupError ? (
                  <Text size="sm" c="red" role="alert">
                    {groupError}
                  </Text>
                ) : null}
                <Group gap="xs">
                  <Button size="xs" variant="light" onClick={() => setGroup(i, { ...group, filters: [...group.filters, newFilter()] })}>
                    {t('filter.addFilter')}
                  </Button>
                  {!group.conditions && depth < MAX_DEPTH ? (
                    <Button size="xs" variant="subtle" onClick={() => setGroup(i, { ...group, conditions: newTree(tree.logic === 'AND' ? 'OR' : 'AND') })}>
                      {t('filter.addNested')}
                    </Button>
                  ) : null}
                  {tree.groups.length > 1 ? (
                    <Button size="xs" variant="subtle" color="red" onClick={() => removeGroup(i)}>
                      {t('filter.removeGroup')}
                    </Button>
                  ) : null}
                </Group>
              </Stack>
            </Paper>
          </Stack>
        );
      })}
      <Group>
        <Button size="xs" variant="default" onClick={() => onChange({ ...tree, groups: [...tree.groups, { filters: [newFilter()] }] })}>
          {t('filter.addGroup')}
        </Button>
      </Group>
    </Stack>
  );
}
