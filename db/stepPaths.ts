import type { Knex } from 'knex';

/**
 * A place in a stored step config: the steps of `type` hold a reference at `path` (keys into
 * `workflow_steps.config`). The list comes from the step registry (services/stepReferences), so
 * the SQL below names no step type and a new type's references are found without a change here.
 */
export interface StepPath {
  type: string;
  path: readonly string[];
}

/** SQL over step alias `s`: some path of its type holds exactly `value` (false for no paths). */
export function stepPathEquals(paths: readonly StepPath[], value: string): { sql: string; bindings: Knex.Value[] } {
  if (!paths.length) return { sql: 'false', bindings: [] };
  return {
    sql: `(${paths.map(() => `(s.type = ? AND s.config #>> ?::text[] = ?)`).join(' OR ')})`,
    bindings: paths.flatMap((p) => [p.type, [...p.path] as unknown as Knex.Value, value]),
  };
}

/** SQL over step alias `s`: the object at some path of its type has `subPath` ("a.b") in it. */
export function stepPathHas(paths: readonly StepPath[], subPath: string): { sql: string; bindings: Knex.Value[] } {
  if (!paths.length) return { sql: 'false', bindings: [] };
  return {
    sql: `(${paths.map(() => `(s.type = ? AND s.config #> ?::text[] #> string_to_array(?, '.') IS NOT NULL)`).join(' OR ')})`,
    bindings: paths.flatMap((p) => [p.type, [...p.path] as unknown as Knex.Value, subPath]),
  };
}
