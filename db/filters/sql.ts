import { containsPattern } from '../search';
import type { FieldType } from '../fields';
import type { FilterOperator, FilterUnit } from './model';
import type { Duration, ResolvedFilter, ResolvedTree, Subject } from './resolve';

/**
 * Emits the SQL of a resolved tree: a boolean expression over a contacts row aliased `c`, with `?`
 * placeholders. Every value a request supplies (data path, event name, operand) is a binding; the
 * only text spliced in comes from the fixed tables below. Bindings are scalars, never arrays,
 * because knex expands an array binding into a list.
 */

export type Binding = string | number | boolean;

export interface Sql {
  sql: string;
  bindings: Binding[];
}

const sql = (text: string, ...bindings: Binding[]): Sql => ({ sql: text, bindings });
const bind = (value: Binding, cast = ''): Sql => sql(cast ? `?::${cast}` : '?', value);

/** Joins fragments with `separator`, parenthesising each when there is more than one. */
function join(parts: Sql[], separator: string): Sql {
  if (parts.length === 1) return parts[0];
  return { sql: parts.map((p) => `(${p.sql})`).join(separator), bindings: parts.flatMap((p) => p.bindings) };
}

/** `template` with each `$` replaced by the next fragment, bindings kept in order. */
function fill(template: string, ...parts: Sql[]): Sql {
  const pieces = template.split('$');
  if (pieces.length !== parts.length + 1) throw new Error(`template expects ${pieces.length - 1} fragments, got ${parts.length}`);
  return {
    sql: pieces.reduce((acc, piece, i) => acc + parts[i - 1].sql + piece),
    bindings: parts.flatMap((p) => p.bindings),
  };
}

/** Safe casts of a jsonb value (migration 004): NULL when the stored value is not of that type. */
const SAFE_CAST: Record<FieldType, string> = {
  string: 'svc_filter_text',
  number: 'svc_filter_number',
  boolean: 'svc_filter_boolean',
  date: 'svc_filter_instant',
};

const UNIT_INTERVAL: Record<FilterUnit, string> = {
  minutes: "interval '1 minute'",
  hours: "interval '1 hour'",
  days: "interval '1 day'",
  weeks: "interval '1 week'",
  months: "interval '1 month'",
};

const NEGATION: Partial<Record<FilterOperator, FilterOperator>> = {
  notEquals: 'equals',
  notContains: 'contains',
  notIn: 'in',
  notExists: 'exists',
  notTriggered: 'triggered',
  // Events only (OPERATORS_BY_KIND): "none in the last N" is NOT "the last one is recent", an anti-join.
  notWithin: 'within',
};

const COMPARE: Partial<Record<FilterOperator, string>> = {
  equals: '=',
  greaterThan: '>',
  lessThan: '<',
  greaterThanOrEqual: '>=',
  lessThanOrEqual: '<=',
};

/**
 * Which contacts a tree is asked about, for the one operator whose best SQL depends on it
 * (`atLeastWithin`): `all` of a project's (a count, a page, an audience: the window's events are
 * counted once, grouped by contact) or a `few` (a block sample, a compute chunk: each candidate
 * counts its own events of the window, so the cost follows the few, not the window).
 */
export type Scope = 'all' | 'few';

export function emitTree(tree: ResolvedTree, scope: Scope = 'all'): Sql {
  const glue = ` ${tree.logic} `;
  return join(
    tree.groups.map((g) => {
      const parts = g.filters.length
        ? [
            join(
              g.filters.map((f) => emitFilter(f, scope)),
              glue,
            ),
          ]
        : [];
      return join(g.conditions ? [...parts, emitTree(g.conditions, scope)] : parts, ' AND ');
    }),
    glue,
  );
}

/**
 * A negated operator is the exact complement of its positive form, and every filter is two-valued
 * (a missing or mistyped value is "no match", never NULL), so AND/OR/NOT behave as written.
 */
function emitFilter(f: ResolvedFilter, scope: Scope): Sql {
  const positive = NEGATION[f.operator];
  const base = emitPositive({ ...f, operator: positive ?? f.operator }, scope);
  // An event filter is a bare EXISTS (never NULL): left bare, the planner turns it into a semi- or
  // anti-join over the rollup rows of that name instead of a probe per contact.
  if (f.subject.kind === 'event') return positive ? fill('NOT $', base) : base;
  return fill(positive ? 'NOT COALESCE($, false)' : 'COALESCE($, false)', base);
}

function emitPositive(f: ResolvedFilter, scope: Scope): Sql {
  const { subject, operator, operand } = f;
  if (subject.kind === 'event') return emitEvent(subject.name, f, scope);
  if (subject.kind === 'topic') return emitTopic(subject.slug, f);
  if (operator === 'exists') {
    return subject.kind === 'column' ? sql('TRUE') : fill("jsonb_typeof($) <> 'null'", dataValue(subject.path));
  }
  const value = typedValue(subject);
  switch (operand.kind) {
    case 'duration':
      return operator === 'within' ? fill('$ BETWEEN $ AND now()', value, ago(operand.duration)) : fill('$ < $', value, ago(operand.duration));
    case 'range':
      return emitRange(value, operator, operand.start, operand.end);
    case 'list':
      return subject.type === 'number'
        ? fill('$ IN (SELECT value::numeric FROM jsonb_array_elements_text($))', value, bind(JSON.stringify(operand.values), 'jsonb'))
        : fill('lower($) IN (SELECT lower(value) FROM jsonb_array_elements_text($))', value, bind(JSON.stringify(operand.values), 'jsonb'));
    case 'scalar':
      return emitScalar(value, subject.type, operator, operand.value);
    default:
      throw new Error(`no operand for ${operator}`);
  }
}

function emitScalar(value: Sql, type: FieldType, operator: FilterOperator, operand: string | number | boolean): Sql {
  if (type === 'string') {
    if (operator === 'equals') return fill('lower($) = lower($)', value, bind(operand));
    // containsPattern escapes LIKE's wildcards; its surrounding % are kept only where the operator wants them.
    const literal = containsPattern(String(operand)).slice(1, -1);
    const pattern = operator === 'startsWith' ? `${literal}%` : operator === 'endsWith' ? `%${literal}` : `%${literal}%`;
    return fill('$ ILIKE $', value, bind(pattern));
  }
  return fill(`$ ${COMPARE[operator]} $`, value, bind(operand, type === 'number' ? 'numeric' : 'boolean'));
}

/** Dates compare as ranges [start, end), so `equals 2024-05-01` is that whole day and `lessThanOrEqual` includes it. */
function emitRange(value: Sql, operator: FilterOperator, start: string, end: string): Sql {
  const at = (bound: string) => bind(bound, 'timestamptz');
  switch (operator) {
    case 'equals':
      return fill('$ >= $ AND $ < $', value, at(start), value, at(end));
    case 'greaterThan':
      return fill('$ >= $', value, at(end));
    case 'greaterThanOrEqual':
      return fill('$ >= $', value, at(start));
    case 'lessThan':
      return fill('$ < $', value, at(start));
    default:
      return fill('$ < $', value, at(end));
  }
}

/** `now() - N units`; the unit picks fixed SQL, the amount is bound. */
const ago = (d: Duration): Sql => sql(`(now() - ?::float8 * ${UNIT_INTERVAL[d.unit]})`, d.amount);

/**
 * The contact's rollup row of that name (migration 059: count, first_at, last_at, kept exact by the
 * triggers on events; no row means no such event) instead of a walk of the log. Every event operator
 * is decided by these figures: `within` is "the last one is recent", `olderThan` "has one and the
 * last one is old", counts compare the whole count. Each is an EXISTS (a contact without a row has
 * count 0: a comparison 0 satisfies is written as "no row fails it"). Events are never in the
 * future, so `within` needs no upper bound (and none that clock skew could trip).
 */
function emitEvent(name: string, f: ResolvedFilter, scope: Scope): Sql {
  const row = (condition: string, ...parts: Sql[]) =>
    fill(
      `EXISTS (SELECT 1 FROM contact_event_rollups r WHERE r.contact_id = c.id AND r.name = $ AND r.project_id = c.project_id${condition})`,
      bind(name),
      ...parts,
    );
  const { operator, operand } = f;
  if (operator === 'triggered') return row('');
  if (operand.kind === 'duration') return row(operator === 'within' ? ' AND r.last_at >= $' : ' AND r.last_at < $', ago(operand.duration));
  if (operand.kind === 'countWithin') {
    const since = () => ago(operand.duration);
    const n = () => bind(operand.count, 'bigint');
    if (scope === 'all') {
      // The window's events of the name, counted per contact in one pass: a range of
      // events_project_name_created_contact (migration 077) read from the index alone. Correlated only
      // at the top (w.contact_id = c.id, w.project_id = c.project_id), so the EXISTS becomes a
      // semi-join and the query's own project (or contact) is pushed into the grouped window.
      return fill(
        `EXISTS (SELECT 1 FROM (SELECT e.project_id, e.contact_id FROM events e WHERE e.name = $ AND e.created_at >= $
                  GROUP BY e.project_id, e.contact_id HAVING count(*) >= $) w
                 WHERE w.contact_id = c.id AND w.project_id = c.project_id)`,
        bind(name),
        since(),
        n(),
      );
    }
    // A few contacts: the rollup is a necessary condition (enough events overall, the last one inside
    // the window) that discards most of them from an index; only the survivors count their log rows of
    // the window, on (contact_id, name, created_at), stopping at the N-th. The count names both the
    // contact and its rollup row, so the planner can only run it on the join's pairs, once per
    // survivor: naming one side alone, it became a filter on every contact (or rollup row) scanned.
    return row(
      ` AND r.count >= $ AND r.last_at >= $ AND (SELECT count(*) FROM (SELECT 1 FROM events e WHERE e.contact_id = c.id AND e.name = r.name AND e.project_id = r.project_id AND e.created_at >= $ LIMIT $) w) >= $`,
      n(),
      since(),
      since(),
      n(),
      n(),
    );
  }
  if (operand.kind !== 'count') throw new Error(`no operand for event ${operator}`);
  const op = COMPARE[operator]!;
  return ZERO_SATISFIES[operator](operand.count)
    ? fill('NOT $', row(` AND NOT (r.count ${op} $)`, bind(operand.count, 'bigint')))
    : row(` AND r.count ${op} $`, bind(operand.count, 'bigint'));
}

/** Whether a contact with none of the events (count 0) satisfies `count <operator> n`. */
const ZERO_SATISFIES: Record<string, (n: number) => boolean> = {
  equals: (n) => n === 0,
  greaterThan: () => false,
  lessThan: (n) => n > 0,
  greaterThanOrEqual: (n) => n <= 0,
  lessThanOrEqual: () => true,
};

/** The contact's state of the topic of that slug (its choice, else the default); a missing topic reads as false. */
function emitTopic(slug: string, f: ResolvedFilter): Sql {
  if (f.operand.kind !== 'scalar') throw new Error(`no operand for topic ${f.operator}`);
  const state = sql(
    `COALESCE((SELECT COALESCE(ctp.subscribed, t.default_subscribed) FROM topics t
                 LEFT JOIN contact_topics ctp ON ctp.topic_id = t.id AND ctp.contact_id = c.id
                WHERE t.project_id = c.project_id AND t.slug = ?), false)`,
    slug,
  );
  return fill('$ = $', state, bind(f.operand.value, 'boolean'));
}

function dataValue(path: string): Sql {
  // Data keys never contain "." (lib/contactData), so the dotted path splits back into its keys in SQL.
  return sql("c.data #> string_to_array(?, '.')", path);
}

function typedValue(subject: Exclude<Subject, { kind: 'event' | 'topic' }>): Sql {
  return subject.kind === 'column' ? sql(subject.column) : fill(`${SAFE_CAST[subject.type]}($)`, dataValue(subject.path));
}
