import { route } from '../route';
import type { RouteDef } from '../route';

const routes: RouteDef[] = [
  route({ method: 'get', path: '/contacts', auth: 'secret', tag: 'contacts', summary: 'List contacts', handler(ctx) { ctx.body = { data: [], cursor: null, hasMore: false, total: 0 }; } }),
];
export default routes;
