import { route } from '../route';
import type { AppContext } from '../context';
import { EraseBody, ErasedOut } from '../schemas/contactPrivacy';
import { eraseAddresses, type ErasureActor } from '../../services/erasure';

const projectOf = (ctx: AppContext) => ctx.state.project!.id;

/** Who asks for an erasure, for its audit entry: the dashboard's user or the secret key. */
export const erasureActor = (ctx: AppContext): ErasureActor => (ctx.state.user ? { userId: ctx.state.user.id } : 'secret key');

// Before contacts.ts: `/contacts/erase` and `/contacts/export…` must not be taken for `/contacts/:id`.
export default [
  route({
    method: 'post',
    path: '/contacts/erase',
    auth: 'secret',
    tag: 'contacts',
    summary: 'Erase people by address everywhere in the project, contacts or not (suppressed addresses, former recipients)',
    body: EraseBody,
    responses: { 200: { description: 'erased', schema: ErasedOut } },
    async handler(ctx, { body }) {
      ctx.body = await eraseAddresses(ctx.deps, projectOf(ctx), body.emails, erasureActor(ctx));
    },
  }),
];
