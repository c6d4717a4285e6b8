import { route } from '../route';
import { heavyReader } from '../../services/reads';
import { audited, requestAuditor } from '../../services/audit';
import type { AppContext } from '../context';
import { badRequest, conflict, notFound } from '../errors';
import {
  ConsentPageOut,
  ConsentQuery,
  ContactCreate,
  ContactIdParams,
  ContactListQuery,
  ContactOut,
  ContactPageOut,
  ContactUpdate,
  ContactUpsertOut,
  FieldsOut,
} from '../schemas/contacts';
import { findContact, listContacts, parseContactCursor } from '../../db/contactReaders';
import { deleteContact, EmailInUseError, updateContact, upsertContact } from '../../db/contactWriters';
import { describeFields } from '../../db/fields';
import { contactTopicMap, topicChanges } from '../../db/topics';
import { listConsent } from '../../db/consent';
import { isPending } from '../../db/doubleOptIn';
import { doubleOptInFor, heldSubscription, needsConfirmation, requestConfirmation } from '../../services/doubleOptIn';
import type { ContactRow } from '../../db/contactReaders';
import { presentContact, presentContactPage } from '../presenters/contacts';
import { presentConsent } from '../presenters/contactRecord';
import { ContactDeleteQuery } from '../schemas/contactPrivacy';
import { eraseContact } from '../../services/erasure';

/** Who made a change, for the subscription events (and the consent record): the dashboard's cookie or an API key. */
export const changeSource = (ctx: AppContext) => (ctx.state.user ? 'dashboard' : 'api');

/** One contact with its topic states and double opt-in state (the list leaves them out). */
const withTopics = async (ctx: AppContext, row: ContactRow) => ({
  ...presentContact(row),
  topics: await contactTopicMap(ctx.deps.knex, row.project_id, row.id),
  pending: await isPending(ctx.deps.knex, row.id),
});

// `/contacts/fields` comes before `/contacts/:id` so "fields" is never taken for an id.
export default [
  route({
    method: 'get',
    path: '/contacts',
    auth: 'secret',
    scope: 'contacts:read',
    tag: 'contacts',
    summary: 'List contacts (cursor pagination)',
    query: ContactListQuery,
    responses: { 200: { description: 'a page of contacts', schema: ContactPageOut } },
    async handler(ctx, { query, project }) {
      const after = query.cursor === undefined ? undefined : parseContactCursor(query.cursor, query.sort);
      if (after === null) throw badRequest('Invalid cursor: pass the cursor of a previous page with the same sort');
      // The spec's `search` here is a substring of the email only; the dashboard's any-field search is POST /contacts/search.
      const { search, ...rest } = query;
      const page = await listContacts(await heavyReader(ctx.deps, project.id), {
        ...rest,
        emailSearch: search,
        projectId: project.id,
        after,
        estimateAbove: ctx.deps.config.countEstimateThreshold,
      });
      return presentContactPage(page);
    },
  }),
  route({
    method: 'post',
    path: '/contacts',
    auth: 'secret',
    scope: 'contacts:write',
    tag: 'contacts',
    summary: 'Create or update a contact by email; with double opt-in a subscription waits for the emailed confirmation',
    body: ContactCreate,
    validationErrors: 'flat',
    responses: {
      201: { description: 'created', schema: ContactUpsertOut },
      200: { description: 'updated', schema: ContactUpsertOut },
    },
    async handler(ctx, { body, project }) {
      const topics = await topicChanges(ctx.deps.knex, project.id, body.topics);
      // Under double opt-in a new contact starts unsubscribed and is mailed a confirmation (services/doubleOptIn).
      const doi = doubleOptInFor(project.double_opt_in, body.doubleOptIn);
      const { doubleOptIn: _asked, ...fields } = body;
      const r = await upsertContact(ctx.deps.knex, {
        ...fields,
        subscribed: heldSubscription(doi, body.subscribed),
        topics,
        projectId: project.id,
        defaultSubscribed: !doi,
        source: changeSource(ctx),
      });
      await ctx.deps.runtime.events.handOff(r.events);
      if (doi && needsConfirmation(doi, body.subscribed, r)) await requestConfirmation(ctx.deps, project.id, r.contact, doi);
      ctx.status = r.isNew ? 201 : 200;
      return { ...(await withTopics(ctx, r.contact)), _meta: { isNew: r.isNew, isUpdate: !r.isNew } };
    },
  }),
  route({
    method: 'get',
    path: '/contacts/fields',
    auth: 'secret',
    scope: 'contacts:read',
    tag: 'contacts',
    summary: 'Standard and custom contact fields with their types and coverage',
    responses: { 200: { description: 'field descriptors', schema: FieldsOut } },
    async handler(ctx, { project }) {
      return { fields: await describeFields(ctx.deps.knex, project.id) };
    },
  }),
  route({
    method: 'get',
    path: '/contacts/:id',
    auth: 'secret',
    scope: 'contacts:read',
    tag: 'contacts',
    summary: 'One contact',
    params: ContactIdParams,
    responses: { 200: { description: 'the contact', schema: ContactOut } },
    async handler(ctx, { params, project }) {
      const row = await findContact(ctx.deps.knex, project.id, params.id);
      if (!row) throw notFound('Contact');
      return await withTopics(ctx, row);
    },
  }),
  route({
    method: 'patch',
    path: '/contacts/:id',
    auth: 'secret',
    scope: 'contacts:write',
    tag: 'contacts',
    summary: 'Update email, subscription, topic states or data (patched) of a contact',
    params: ContactIdParams,
    body: ContactUpdate,
    validationErrors: 'flat',
    responses: { 200: { description: 'the updated contact', schema: ContactOut } },
    async handler(ctx, { params, body, project }) {
      try {
        const topics = await topicChanges(ctx.deps.knex, project.id, body.topics);
        const r = await updateContact(ctx.deps.knex, { ...body, topics, projectId: project.id, contactId: params.id, source: changeSource(ctx) });
        if (!r) throw notFound('Contact');
        await ctx.deps.runtime.events.handOff(r.events);
        return await withTopics(ctx, r.contact);
      } catch (err) {
        if (err instanceof EmailInUseError) throw conflict(err.message);
        throw err;
      }
    },
  }),
  route({
    method: 'get',
    path: '/contacts/:id/consent',
    auth: 'secret',
    scope: 'contacts:read',
    tag: 'contacts',
    summary: "The contact's consent record: every change of its subscription and topic states, oldest first (page pagination)",
    params: ContactIdParams,
    query: ConsentQuery,
    responses: { 200: { description: 'a page of the record', schema: ConsentPageOut } },
    async handler(ctx, { params, query, project }) {
      if (!(await findContact(ctx.deps.knex, project.id, params.id))) throw notFound('Contact');
      const { rows, total } = await listConsent(ctx.deps.knex, project.id, params.id, query.page, query.pageSize);
      return {
        data: rows.map(presentConsent),
        page: query.page,
        pageSize: query.pageSize,
        total,
        totalPages: Math.ceil(total / query.pageSize),
      };
    },
  }),
  route({
    method: 'delete',
    path: '/contacts/:id',
    audit: ['contact.delete', 'contact.erase'],
    responses: { 204: { description: 'deleted' } },
    auth: 'secret',
    scope: 'contacts:write',
    tag: 'contacts',
    summary: 'Delete a contact and its events; with erase=true, erase the person everywhere (docs/privacy.md "Erasure")',
    params: ContactIdParams,
    query: ContactDeleteQuery,
    async handler(ctx, { params, query, project }) {
      if (query.erase) {
        await eraseContact(ctx.deps, project.id, params.id, requestAuditor(ctx));
        ctx.status = 204;
        return;
      }
      const projectId = project.id;
      const deleted = await audited(
        ctx.deps.knex,
        requestAuditor(ctx),
        (trx) => deleteContact(trx, projectId, params.id),
        (ok) => ok && { projectId, action: 'contact.delete', target: { type: 'contact', id: params.id } },
      );
      if (!deleted) throw notFound('Contact');
      ctx.status = 204;
    },
  }),
];
