import type { RouteDef } from '../route';

const routes: RouteDef[] = [];
export default routes;
