import { route } from '../route';
import { presentCount } from '../presenters/counts';
import { heavyReader } from '../../services/reads';
import { requestAuditor } from '../../services/audit';
import { recordAudit } from '../../db/auditLog';
import { referencePaths } from '../../services/stepReferences';
import type { AppContext } from '../context';
import { badRequest, notFound, validationError } from '../errors';
import {
  CountBody,
  CountOut,
  FieldDeleteOut,
  FieldParams,
  FieldUsageOut,
  FieldValuesOut,
  FieldValuesQuery,
  LookupBody,
  LookupOut,
} from '../schemas/contactFields';
import { fieldValues, lookupContacts, registeredKeysUnder, removeDataField, ValueField } from '../../db/contactQueries';
import { fieldReferences } from '../../db/references';
import { FilterError, loadFieldTypes } from '../../db/filters';
import { countMatchingOrEstimate } from '../../db/contactCounts';
import { filterErrorToFieldError } from '../schemas/filters';

const dataPathOf = (field: string) => (field.startsWith('data.') ? field.slice('data.'.length) : null);

/** A custom field must be registered at or beneath its path; 404 otherwise. */
async function assertKnownDataField(ctx: AppContext, projectId: string, path: string) {
  if ((await registeredKeysUnder(ctx.deps.knex, projectId, path)).length === 0) throw notFound('Field');
}

// Registered before the contacts routes so that none of these paths is ever taken for `/contacts/:id`.
export default [
  route({
    method: 'post',
    path: '/contacts/count',
    auth: 'secret',
    scope: 'contacts:read',
    tag: 'contacts',
    summary: "How many contacts a filter tree matches now (the filter builder's live count; the same compiler as segments)",
    body: CountBody,
    responses: {
      200: { description: 'the count', schema: CountOut },
      422: { description: "the tree does not fit the project's fields: each problem names its node (`condition.groups.0.filters.1.operator`)" },
    },
    async handler(ctx, { body, project }) {
      const projectId = project.id;
      const reader = await heavyReader(ctx.deps, project.id);
      try {
        const threshold = ctx.deps.config.countEstimateThreshold;
        const counted = await countMatchingOrEstimate(reader, projectId, body.condition, await loadFieldTypes(reader, projectId), { threshold });
        return presentCount(counted);
      } catch (err) {
        if (!(err instanceof FilterError)) throw err;
        throw validationError(
          err.problems.map((p) => filterErrorToFieldError(new FilterError([p]), 'condition')),
          "The condition does not fit the project's fields",
        );
      }
    },
  }),
  route({
    method: 'post',
    path: '/contacts/lookup',
    auth: 'secret',
    scope: 'contacts:read',
    tag: 'contacts',
    summary: 'Which of these addresses are contacts of the project (up to 500 per call)',
    body: LookupBody,
    responses: { 200: { description: 'found contacts and missing addresses', schema: LookupOut } },
    async handler(ctx, { body, project }) {
      return await lookupContacts(ctx.deps.knex, project.id, body.emails);
    },
  }),
  route({
    method: 'get',
    path: '/contacts/fields/:field/values',
    auth: 'secret',
    scope: 'contacts:read',
    tag: 'contacts',
    resource: 'Field',
    summary: 'The most frequent values of email, subscribed or a data.<path> field, with their counts',
    params: FieldParams,
    query: FieldValuesQuery,
    responses: { 200: { description: 'values, most frequent first', schema: FieldValuesOut } },
    async handler(ctx, { params, query, project }) {
      const path = dataPathOf(params.field);
      let field: ValueField;
      if (path !== null) {
        await assertKnownDataField(ctx, project.id, path);
        field = { dataPath: path };
      } else if (params.field === 'email' || params.field === 'subscribed') {
        field = { column: params.field };
      } else {
        throw badRequest(`Values are listed for email, subscribed and data fields, not ${params.field}`);
      }
      return { field: params.field, values: await fieldValues(ctx.deps.knex, project.id, field, query.limit) };
    },
  }),
  route({
    method: 'get',
    path: '/contacts/fields/:field/usage',
    auth: 'secret',
    scope: 'contacts:read',
    tag: 'contacts',
    resource: 'Field',
    summary: 'Segments, campaign audiences and workflows (CONDITION filters, UPDATE_CONTACT writes) that reference the field',
    params: FieldParams,
    responses: { 200: { description: 'references', schema: FieldUsageOut } },
    async handler(ctx, { params, project }) {
      return { field: params.field, ...(await fieldReferences(ctx.deps.knex, project.id, params.field, referencePaths('contactFields', ctx.deps.steps))) };
    },
  }),
  route({
    method: 'delete',
    path: '/contacts/fields/:field',
    audit: 'contact_field.delete',
    auth: 'secret',
    scope: 'contacts:write',
    tag: 'contacts',
    resource: 'Field',
    summary: 'Remove a custom field from every contact and from the field registry; filters on it stay but stop matching',
    params: FieldParams,
    responses: { 200: { description: 'removed', schema: FieldDeleteOut }, 400: { description: 'standard fields cannot be deleted' } },
    async handler(ctx, { params, project }) {
      const path = dataPathOf(params.field);
      if (path === null) throw badRequest(`${params.field} is a standard field and cannot be deleted`);
      await assertKnownDataField(ctx, project.id, path);
      // The removal runs in batches on purpose (a project's every contact in one transaction would
      // hold them all): the entry is committed first, so no removal goes unrecorded.
      await recordAudit(ctx.deps.knex, {
        ...requestAuditor(ctx),
        projectId: project.id,
        action: 'contact_field.delete',
        target: { type: 'contact_field', id: params.field },
      });
      return { field: params.field, contactsUpdated: await removeDataField(ctx.deps.knex, project.id, path) };
    },
  }),
];
