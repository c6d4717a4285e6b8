import { route } from '../route';
import { badRequest, validationError } from '../errors';
import { ContactPageOut } from '../schemas/contacts';
import { ContactSearchBody } from '../schemas/contactSearch';
import { heavyReader } from '../../services/reads';
import { filterErrorToFieldError } from '../schemas/filters';
import { presentContactPage } from '../presenters/contacts';
import { listContacts, parseContactCursor } from '../../db/contactReaders';
import { FilterError } from '../../db/filters';
import { compileSelection } from '../../services/contactSelection';

// Before contacts.ts, so that "search" is never taken for a contact id.
export default [
  route({
    method: 'post',
    path: '/contacts/search',
    auth: 'secret',
    scope: 'contacts:read',
    tag: 'contacts',
    summary: 'List contacts matching a filter tree (and search): GET /contacts with a body, same cursor pagination',
    body: ContactSearchBody,
    responses: {
      200: { description: 'a page of contacts', schema: ContactPageOut },
      422: { description: "the filter tree does not fit the project's fields" },
    },
    async handler(ctx, { body, project }) {
      const after = body.cursor === undefined ? undefined : parseContactCursor(body.cursor, body.sort);
      if (after === null) throw badRequest('Invalid cursor: pass the cursor of a previous page with the same sort');
      let selection: Awaited<ReturnType<typeof compileSelection>>;
      try {
        selection = await compileSelection(ctx.deps.knex, project.id, body);
      } catch (err) {
        if (err instanceof FilterError) throw validationError([filterErrorToFieldError(err, 'filter')], "The filter does not fit the project's fields");
        throw err;
      }
      const page = await listContacts(await heavyReader(ctx.deps, project.id), {
        ...selection,
        limit: body.limit,
        sort: body.sort,
        dir: body.dir,
        after,
        estimateAbove: ctx.deps.config.countEstimateThreshold,
      });
      return presentContactPage(page);
    },
  }),
];
