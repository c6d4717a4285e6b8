import { useMemo } from 'react';
import {
  ActionIcon,
  Alert,
  Badge,
  Button,
  Group,
  Loader,
  NumberInput,
  Paper,
  SegmentedControl,
  Select,
  Stack,
  TagsInput,
  Text,
  TextInput,
} from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { api, ApiError, unwrap } from '../api/client';
import { keys } from '../api/queryKeys';
import { useEventNames } from '../api/hooks/events';
import { useContactFields } from '../api/hooks/contacts';
import type { components } from '../api/schema';
import { OPERATORS_BY_KIND, type FilterKind } from '../api/filterOperators';
import { useTranslation } from 'react-i18next';
import type { TFunction } from 'i18next';
import type { data as en } from '../i18n/en/data';
import { intlLocale } from '../i18n/locale';
import { useCountWords } from './CountText';

/**
 * The filter tree editor (docs/api.md "Segments"; the compiler is db/filters.ts): used by segments, and
 * meant for campaign audiences and workflow CONDITION steps. A tree's `logic` joins its groups AND the
 * filters inside each group; a group's nested `conditions` tree (its own logic) is ANDed to its filters.
 *
 * Errors are keyed by node path relative to the tree (`groups.0.filters.1.operator`), as the API names
 * them after its `condition.` prefix: `conditionErrors()` turns an API error into that map.
 */

/** The enums of the API's FilterTree and FilterCondition schemas. */
export type FilterLogic = components['schemas']['FilterTree']['logic'];
export type FilterUnit = NonNullable<components['schemas']['FilterCondition']['unit']>;
export type FilterOperator = components['schemas']['FilterCondition']['operator'];

export interface FilterCondition {
  field: string;
  operator: FilterOperator;
  value?: unknown;
  unit?: FilterUnit;
}
export interface FilterGroup {
  filters: FilterCondition[];
  conditions?: FilterTree;
}
export interface FilterTree {
  logic: FilterLogic;
  groups: FilterGroup[];
}

/** Field kinds the builder offers (GET /contacts/fields types and event.<name>; topic.<slug> is not offered yet). */
type Kind = Exclude<FilterKind, 'topic'>;

/** The compiler's table, generated from the OpenAPI document (web/src/api/filterOperators.ts): web/ never imports server code. */
const OPERATORS: Record<Kind, readonly FilterOperator[]> = OPERATORS_BY_KIND;

type Words = (typeof en)['filter'];
type T = TFunction<'data'>;
/** Operators whose words differ on a date ("is after") from a number's ("is greater than"). */
const DATE_WORDS: readonly FilterOperator[] = ['greaterThan', 'lessThan', 'greaterThanOrEqual', 'lessThanOrEqual'];
/** An operator's words for a field of `kind` (data catalogue, filter.*Operators). */
const opLabel = (t: T, kind: Kind, op: FilterOperator) =>
  kind === 'event'
    ? t(`filter.eventOperators.${op as keyof Words['eventOperators']}`)
    : kind === 'date' && DATE_WORDS.includes(op)
      ? t(`filter.dateOperators.${op as keyof Words['dateOperators']}`)
      : t(`filter.operators.${op as keyof Words['operators']}`);

const UNITS: FilterUnit[] = ['minutes', 'hours', 'days', 'weeks', 'months'];
const NO_VALUE: FilterOperator[] = ['exists', 'notExists', 'triggered', 'notTriggered'];

export const newFilter = (): FilterCondition => ({ field: 'email', operator: 'contains', value: '' });
export const newTree = (logic: FilterLogic = 'AND'): FilterTree => ({ logic, groups: [{ filters: [newFilter()] }] });

/** Field errors of an API answer as node paths relative to the tree (`condition.groups.0…` → `groups.0…`; the tree itself is `''`). */
export function conditionErrors(error: unknown, prefix = 'condition'): Record<string, string> {
  const out: Record<string, string> = {};
  if (!(error instanceof ApiError)) return out;
  const strip = (f: string) => (f === prefix || f === '(root)' ? '' : f.startsWith(`${prefix}.`) ? f.slice(prefix.length + 1) : null);
  for (const [f, message] of Object.entries(error.fields)) {
    const at = strip(f);
    if (at !== null && !(at in out)) out[at] = message;
  }
  // Routes answering the flat `{ error }` body (segments) name the node at the start of the sentence.
  const flat = new RegExp(`^(${prefix}(?:\\.[^\\s:]+)?): (.+)$`, 's').exec(error.message);
  if (flat && !Object.keys(out).length) out[strip(flat[1]) ?? ''] = flat[2];
  return out;
}

interface FieldOption {
  value: string;
  label: string;
  kind: Kind;
}

/** Fields of GET /contacts/fields (typed, with coverage) and `event.<name>` for every name of GET /events/names. */
export function useFilterFields(projectId: string) {
  const { t } = useTranslation('data');
  const fields = useContactFields(projectId);
  const events = useEventNames(projectId);
  const options = useMemo(() => {
    const out: FieldOption[] = [];
    for (const f of fields.data?.fields ?? []) {
      // Coverage: the share of contacts that have the field (custom fields only; standard ones always do).
      const kind = t(`filter.kinds.${f.type}`);
      const coverage = new Intl.NumberFormat(intlLocale(), { style: 'percent' }).format(Math.round(f.coverage * 100) / 100);
      const label = f.isCustom ? t('filter.fieldOptionCoverage', { field: f.field, kind, coverage }) : t('filter.fieldOption', { field: f.field, kind });
      out.push({ value: f.field, label, kind: f.type });
    }
    // An event's field is its path (`event.signup`), the same in every language.
    for (const path of (events.data?.data ?? []).map((e) => `event.${e.name}`)) out.push({ value: path, label: path, kind: 'event' });
    return out;
  }, [fields.data, events.data, t]);
  return { options, isPending: fields.isPending || events.isPending, error: fields.error ?? events.error };
}

function kindOf(field: string, options: FieldOption[]): Kind {
  const known = options.find((o) => o.value === field);
  if (known) return known.kind;
  return field.startsWith('event.') ? 'event' : 'string';
}

/** The value a filter gets when its field or operator changes shape. */
function defaultValue(kind: Kind, operator: FilterOperator): Pick<FilterCondition, 'value' | 'unit'> {
  if (NO_VALUE.includes(operator)) return {};
  if (operator === 'within' || operator === 'olderThan' || operator === 'notWithin') return { value: 7, unit: 'days' };
  if (operator === 'atLeastWithin') return { value: { atLeast: 3, within: 30 }, unit: 'days' };
  if (operator === 'in' || operator === 'notIn') return { value: [] };
  if (kind === 'event') return { value: 1 };
  if (kind === 'boolean') return { value: true };
  return { value: '' };
}

const DURATION_OPS: FilterOperator[] = ['within', 'olderThan', 'notWithin'];
const valueShape = (kind: Kind, op: FilterOperator) =>
  NO_VALUE.includes(op)
    ? 'none'
    : op === 'atLeastWithin'
      ? 'countWithin'
      : DURATION_OPS.includes(op)
        ? 'duration'
        : op === 'in' || op === 'notIn'
          ? 'list'
          : kind === 'event'
            ? 'count'
            : kind;

type Errors = Record<string, string>;
/** The first error at `path` or beneath it (`value.3` shows on the value). */
const errorAt = (errors: Errors, path: string) => errors[path] ?? Object.entries(errors).find(([p]) => p.startsWith(`${path}.`))?.[1];

function ValueInput({
  kind,
  filter,
  onChange,
  error,
  unitError,
}: {
  kind: Kind;
  filter: FilterCondition;
  onChange: (f: FilterCondition) => void;
  error?: string;
  unitError?: string;
}) {
  const { t } = useTranslation('data');
  const shape = valueShape(kind, filter.operator);
  const units = UNITS.map((u) => ({ value: u, label: t(`filter.units.${u}`) }));
  const set = (value: unknown) => onChange({ ...filter, value });
  const num = (v: string | number) => (typeof v === 'number' ? v : v === '' ? '' : Number.isFinite(Number(v)) ? Number(v) : v);
  switch (shape) {
    case 'none':
      return null;
    case 'duration':
      return (
        <Group gap="xs" wrap="nowrap" align="flex-start">
          <NumberInput label={t('filter.value')} min={0} value={filter.value as number | string} onChange={(v) => set(num(v))} error={error} w={110} />
          <Select
            label={t('filter.unit')}
            data={units}
            value={filter.unit ?? null}
            onChange={(u) => onChange({ ...filter, unit: (u as FilterUnit) ?? undefined })}
            allowDeselect={false}
            error={unitError}
            w={120}
          />
        </Group>
      );
    case 'countWithin': {
      // { atLeast, within } with the unit beside it (db/filters parseCountWithin).
      const v = (filter.value ?? {}) as { atLeast?: number | string; within?: number | string };
      return (
        <Group gap="xs" wrap="nowrap" align="flex-start">
          <NumberInput
            label={t('filter.times')}
            min={1}
            allowDecimal={false}
            value={v.atLeast ?? ''}
            onChange={(n) => set({ ...v, atLeast: num(n) })}
            error={error}
            w={90}
          />
          <NumberInput label={t('filter.within')} min={0} value={v.within ?? ''} onChange={(n) => set({ ...v, within: num(n) })} w={90} />
          <Select
            label={t('filter.unit')}
            data={units}
            value={filter.unit ?? null}
            onChange={(u) => onChange({ ...filter, unit: (u as FilterUnit) ?? undefined })}
            allowDeselect={false}
            error={unitError}
            w={120}
          />
        </Group>
      );
    }
    case 'list': {
      const values = Array.isArray(filter.value) ? (filter.value as unknown[]).map(String) : [];
      return (
        <TagsInput
          label={t('filter.value')}
          description={t('filter.listHint')}
          value={values}
          onChange={(vs) => set(kind === 'number' ? vs.map((v) => num(v)) : vs)}
          error={error}
          miw={220}
          style={{ flex: 1 }}
        />
      );
    }
    case 'count':
      return (
        <NumberInput
          label={t('filter.value')}
          description={t('filter.timesUnit')}
          min={0}
          allowDecimal={false}
          value={filter.value as number | string}
          onChange={(v) => set(num(v))}
          error={error}
          w={120}
        />
      );
    case 'number':
      return <NumberInput label={t('filter.value')} value={filter.value as number | string} onChange={(v) => set(num(v))} error={error} w={160} />;
    case 'boolean':
      return (
        <Select
          label={t('filter.value')}
          data={[
            { value: 'true', label: t('filter.yes') },
            { value: 'false', label: t('filter.no') },
          ]}
          value={String(filter.value ?? 'true')}
          onChange={(v) => set(v === 'true')}
          allowDeselect={false}
          error={error}
          w={110}
        />
      );
    case 'date':
      return (
        <TextInput
          label={t('filter.value')}
          type="date"
          value={typeof filter.value === 'string' ? filter.value.slice(0, 10) : ''}
          onChange={(e) => set(e.currentTarget.value)}
          error={error}
          w={170}
        />
      );
    default:
      return (
        <TextInput
          label={t('filter.value')}
          value={typeof filter.value === 'string' ? filter.value : String(filter.value ?? '')}
          onChange={(e) => set(e.currentTarget.value)}
          error={error}
          miw={180}
          style={{ flex: 1 }}
        />
      );
  }
}

function FilterRow({
  filter,
  path,
  options,
  errors,
  onChange,
  onRemove,
}: {
  filter: FilterCondition;
  path: string;
  options: FieldOption[];
  errors: Errors;
  onChange: (f: FilterCondition) => void;
  onRemove: () => void;
}) {
  const { t } = useTranslation('data');
  const kind = kindOf(filter.field, options);
  const fieldData = options.some((o) => o.value === filter.field) ? options : [...options, { value: filter.field, label: filter.field, kind }];
  const nodeError = errors[path];
  return (
    <Stack gap={4} data-filter-path={path}>
      <Group gap="xs" align="flex-start" wrap="wrap">
        <Select
          label={t('filter.field')}
          searchable
          data={fieldData.map(({ value, label }) => ({ value, label }))}
          value={filter.field}
          allowDeselect={false}
          onChange={(field) => {
            if (!field) return;
            const k = kindOf(field, options);
            const operator = OPERATORS[k].includes(filter.operator) ? filter.operator : OPERATORS[k][0];
            const keep = valueShape(k, operator) === valueShape(kind, filter.operator);
            onChange({ field, operator, ...(keep ? { value: filter.value, unit: filter.unit } : defaultValue(k, operator)) });
          }}
          error={errorAt(errors, `${path}.field`)}
          w={240}
        />
        <Select
          label={t('filter.operator')}
          data={OPERATORS[kind].map((op) => ({ value: op, label: opLabel(t, kind, op) }))}
          value={filter.operator}
          allowDeselect={false}
          onChange={(op) => {
            if (!op) return;
            const operator = op as FilterOperator;
            const keep = valueShape(kind, operator) === valueShape(kind, filter.operator);
            onChange({ field: filter.field, operator, ...(keep ? { value: filter.value, unit: filter.unit } : defaultValue(kind, operator)) });
          }}
          error={errorAt(errors, `${path}.operator`)}
          w={210}
        />
        <ValueInput kind={kind} filter={filter} onChange={onChange} error={errorAt(errors, `${path}.value`)} unitError={errors[`${path}.unit`]} />
        <ActionIcon variant="subtle" color="gray" aria-label={t('filter.removeFilter')} onClick={onRemove} mt={26}>
          ×
        </ActionIcon>
      </Group>
      {nodeError ? (
        <Text size="sm" c="red" role="alert">
          {nodeError}
        </Text>
      ) : null}
    </Stack>
  );
}

const MAX_DEPTH = 5;

function TreeEditor({
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

/**
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
  const count = useQuery({
    queryKey: keys.contacts.count(projectId, key),
    enabled: liveCount,
    placeholderData: keepPreviousData,
    retry: false,
    queryFn: () => unwrap(api.POST('/contacts/count', { body: { condition: debounced as never } })),
  });
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
