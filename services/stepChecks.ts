import type { Knex } from 'knex';
import { nestedDeeperThan } from '../lib/json';
import { assertVerifiedSender } from './senderCheck';
import { checkTemplate } from './render';
import { STEP_TYPES, StepRegistry, findStepType, ConfigChecks } from '../temporal/steps';
import { dataProblems } from '../lib/contactData';
import { referenceTemplate } from '../db/templates';
import { isSenderDomainVerified } from '../db/domains';
import { compileFilter, FilterError, loadFieldTypes } from '../db/filters';
import { findTopicByKey } from '../db/topics';

/** One problem of a step's config, named by its field path (the API answers them as a 422's field errors). */
export interface StepProblem {
  field: string;
  code: string;
  message: string;
}

/** How deep a filter tree may nest (as the API's schemas allow JSON to). */
const MAX_NESTING = 32;

/**
 * Answers a step type's `check` for one project: Liquid that must parse, templates of the same
 * project, verified senders, contact data rules, filter trees the compiler accepts. On `save` an
 * unverified sender is the 403 every sender check answers; when enabling it is one more problem.
 */
export async function stepConfigProblems(
  knex: Knex,
  projectId: string,
  type: string,
  config: Record<string, unknown>,
  mode: 'save' | 'enable',
  options: {
    registry?: StepRegistry;
    senderWaived?: boolean;
    /** A filter tree's shape errors under `at` (the API's filter schema judges the shape; the compiler the rest). */
    filterShape: (tree: unknown, at: string) => StepProblem[];
  },
): Promise<StepProblem[]> {
  const { registry = STEP_TYPES, senderWaived = false } = options;
  const def = findStepType(registry, type);
  if (!def?.check) return [];
  const problems: StepProblem[] = [];
  const at = (path: string) => `config.${path}`;
  const add = (path: string, message: string) => problems.push({ field: at(path), code: 'custom', message });
  const checks: ConfigChecks = {
    liquid(path, source) {
      const problem = checkTemplate(source);
      if (problem) add(path, `not a valid template: ${problem}`);
    },
    async template(path, templateId) {
      // In a step write's transaction this also keeps the template from being deleted (db/templates).
      if (!(await referenceTemplate(knex, projectId, templateId))) add(path, 'template not found in this project');
    },
    async sender(path, email) {
      if (mode === 'save') return assertVerifiedSender(knex, projectId, email, senderWaived);
      if (!senderWaived && !(await isSenderDomainVerified(knex, projectId, email))) add(path, `the sender domain of ${email} is not verified for this project`);
    },
    contactData(path, data) {
      for (const p of dataProblems(data)) add([path, ...p.path].join('.'), p.message);
    },
    async filterTree(path, tree) {
      if (nestedDeeperThan(tree, MAX_NESTING)) return void add(path, `the filter tree is nested more than ${MAX_NESTING} levels deep`);
      const shapeErrors = options.filterShape(tree, at(path));
      if (shapeErrors.length) return void problems.push(...shapeErrors);
      try {
        compileFilter(tree, { fieldTypes: await loadFieldTypes(knex, projectId) });
      } catch (err) {
        if (!(err instanceof FilterError)) throw err;
        problems.push({ field: err.fieldUnder(at(path)), message: err.detail, code: 'custom' });
      }
    },
    async topic(path, key) {
      if (!(await findTopicByKey(knex, projectId, key))) add(path, 'topic not found in this project');
    },
  };
  await def.check(config, checks);
  return problems;
}
