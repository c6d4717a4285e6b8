import { useMemo } from 'react';
import type { TFunction } from 'i18next';
import { useTranslation } from 'react-i18next';
import { useContactFields } from '../../api/hooks/contacts';
import { useEventNames } from '../../api/hooks/events';
import { OPERATORS_BY_KIND, type FilterKind } from '../../api/filterOperators';
import type { data as en } from '../../i18n/en/data';
import { intlLocale } from '../../i18n/locale';
import type { FilterCondition, FilterOperator, FilterUnit } from './tree';

/** Field kinds the builder offers (GET /contacts/fields types and event.<name>; topic.<slug> is not offered yet). */
export type Kind = Exclude<FilterKind, 'topic'>;

/** The compiler's table, generated from the OpenAPI document (web/src/api/filterOperators.ts): web/ never imports server code. */
export const OPERATORS: Record<Kind, readonly FilterOperator[]> = OPERATORS_BY_KIND;

type Words = (typeof en)['filter'];
type T = TFunction<'data'>;
/** Operators whose words differ on a date ("is after") from a number's ("is greater than"). */
const DATE_WORDS: readonly FilterOperator[] = ['greaterThan', 'lessThan', 'greaterThanOrEqual', 'lessThanOrEqual'];
/** An operator's words for a field of `kind` (data catalogue, filter.*Operators). */
export const opLabel = (t: T, kind: Kind, op: FilterOperator) =>
  kind === 'event'
    ? t(`filter.eventOperators.${op as keyof Words['eventOperators']}`)
    : kind === 'date' && DATE_WORDS.includes(op)
      ? t(`filter.dateOperators.${op as keyof Words['dateOperators']}`)
      : t(`filter.operators.${op as keyof Words['operators']}`);

export const UNITS: FilterUnit[] = ['minutes', 'hours', 'days', 'weeks', 'months'];
const NO_VALUE: FilterOperator[] = ['exists', 'notExists', 'triggered', 'notTriggered'];

export interface FieldOption {
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

export function kindOf(field: string, options: FieldOption[]): Kind {
  const known = options.find((o) => o.value === field);
  if (known) return known.kind;
  return field.startsWith('event.') ? 'event' : 'string';
}

/** The value a filter gets when its field or operator changes shape. */
export function defaultValue(kind: Kind, operator: FilterOperator): Pick<FilterCondition, 'value' | 'unit'> {
  if (NO_VALUE.includes(operator)) return {};
  if (operator === 'within' || operator === 'olderThan' || operator === 'notWithin') return { value: 7, unit: 'days' };
  if (operator === 'atLeastWithin') return { value: { atLeast: 3, within: 30 }, unit: 'days' };
  if (operator === 'in' || operator === 'notIn') return { value: [] };
  if (kind === 'event') return { value: 1 };
  if (kind === 'boolean') return { value: true };
  return { value: '' };
}

const DURATION_OPS: FilterOperator[] = ['within', 'olderThan', 'notWithin'];
export const valueShape = (kind: Kind, op: FilterOperator) =>
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

export type Errors = Record<string, string>;
/** The first error at `path` or beneath it (`value.3` shows on the value). */
export const errorAt = (errors: Errors, path: string) => errors[path] ?? Object.entries(errors).find(([p]) => p.startsWith(`${path}.`))?.[1];
