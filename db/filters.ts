import type { Knex } from 'knex';
import { registeredFields, FieldType } from './fields';
import { FieldTypes, FilterError, FilterProblem } from './filters/model';
import { resolveTree } from './filters/resolve';
import { emitTree, Binding, Scope } from './filters/sql';

/**
 * THE filter-tree compiler (docs/architecture.md): segments, campaign audiences and workflow CONDITION
 * steps all go through `compileFilter`; "does this contact match" is the same SQL with `c.id = ?`.
 *
 * Semantics:
 * - A tree's groups combine with its `logic`; inside a group the filters combine with that same
 *   `logic`, and the group's nested `conditions` tree (with its own logic) is ANDed to them:
 *   `{OR, [{filters:[a,b], conditions:T}, {filters:[d]}]}` is `((a OR b) AND T) OR (d)`.
 *   A tree needs at least one group and a group at least one filter or `conditions`.
 * - Fields: `email`, `subscribed`, `createdAt`, `updatedAt`, `data.<key>[.<key>…]` (keys as stored,
 *   any characters but "."), `event.<name>`. A data key's type is the project registry's; a key the
 *   registry has not seen takes the type the filter's operator and value imply.
 * - A stored value of another type than the field's never matches a comparison (and never raises).
 * - Strings compare case-insensitively (`equals`, `in` and the LIKE family; `%`, `_`, `\` match literally).
 * - A date value `YYYY-MM-DD` stands for that whole UTC day, an instant for its millisecond:
 *   `equals` is "inside", `greaterThan` "after", `lessThanOrEqual` "before its end", and so on.
 *   `within N unit` is "between now - N units and now"; `olderThan N unit` is "before now - N units".
 * - Negated operators (`notEquals`, `notContains`, `notIn`, `notExists`, `notTriggered`) are exact
 *   complements: a contact without the field, or with a mistyped value, matches them.
 * - `topic.<slug>`: `equals`/`notEquals` true or false, the contact's state of the topic (its choice,
 *   else the topic's default; db/topics), whatever its global `subscribed`. A slug no topic of the
 *   project has reads as "not subscribed".
 * - `event.<name>`: `triggered`/`notTriggered` (at least one such event), `within` (one at or after
 *   now - N units), `olderThan` (has one, and the latest is older than N units), and `equals`, `notEquals`,
 *   `greaterThan`, `lessThan`, `greaterThanOrEqual`, `lessThanOrEqual` on the number of those events.
 */

export * from './filters/model';
export { OPERATORS_BY_KIND } from './filters/resolve';

export interface CompiledFilter {
  /** A boolean SQL expression over a contacts row aliased `c`, with `?` placeholders. */
  sql: string;
  bindings: Binding[];
}

export interface CompileOptions {
  fieldTypes: FieldTypes;
  /** `few` when the query asks about a few contacts (a sample, a compute chunk); default `all` of the project's (db/filters/sql.ts Scope). */
  scope?: Scope;
}

/** Every problem of a tree (at most 20), `[]` when it compiles. Without `fieldTypes`, data types come from the filters alone. */
export function filterProblems(tree: unknown, fieldTypes: FieldTypes = {}): FilterProblem[] {
  return resolveTree(tree, fieldTypes).problems;
}

/** Throws FilterError for a tree that does not validate against the field types. */
export function compileFilter(tree: unknown, opts: CompileOptions): CompiledFilter {
  const resolved = resolveTree(tree, opts.fieldTypes);
  if (!resolved.tree) throw new FilterError(resolved.problems);
  return emitTree(resolved.tree, opts.scope);
}

export async function loadFieldTypes(db: Knex, projectId: string): Promise<Record<string, FieldType>> {
  // fromEntries keeps a key such as "__proto__" an ordinary own key.
  return Object.fromEntries((await registeredFields(db, projectId)).map((f) => [f.key, f.type]));
}

/**
 * The project's matching contacts as a knex builder over `contacts c` (add select/order/limit).
 * Takes the field types rather than loading them: a builder is thenable, so an async function
 * returning one would run it.
 */
export function matchingContactsQuery(db: Knex, projectId: string, tree: unknown, fieldTypes: FieldTypes): Knex.QueryBuilder {
  const { sql, bindings } = compileFilter(tree, { fieldTypes });
  return db({ c: 'contacts' }).where('c.project_id', projectId).whereRaw(`(${sql})`, bindings);
}

export async function countMatching(db: Knex, projectId: string, tree: unknown, fieldTypes?: FieldTypes): Promise<number> {
  const types = fieldTypes ?? (await loadFieldTypes(db, projectId));
  const [row] = await matchingContactsQuery(db, projectId, tree, types).count<{ count: number | string }[]>('* as count');
  return Number(row.count);
}

/** The workflow CONDITION question: does this one contact match? (false when it is not the project's). */
export async function contactMatches(db: Knex, projectId: string, contactId: string, tree: unknown, fieldTypes?: FieldTypes): Promise<boolean> {
  const types = fieldTypes ?? (await loadFieldTypes(db, projectId));
  const found = await matchingContactsQuery(db, projectId, tree, types).andWhere('c.id', contactId).first(db.raw('1 AS hit'));
  return !!found;
}
