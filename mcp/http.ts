import type { Next } from 'koa';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { AppContext } from '../api/context';
import { ApiError, unauthorized } from '../api/errors';
import { identifyKey } from '../services/apiKeys';
import { createMcpServer } from './server';

export const MCP_PATH = '/mcp';

/**
 * The streamable HTTP transport at /mcp, stateless: each POST carries `Authorization: Bearer <key>`
 * and gets a fresh server for that key. A bearer key, never a cookie, so no cross-site check is
 * needed: another site's page cannot make the browser add the header.
 */
export function mcpEndpoint() {
  return async (ctx: AppContext, next: Next) => {
    if (ctx.path !== MCP_PATH) return next();
    if (ctx.method !== 'POST') {
      ctx.set('Allow', 'POST');
      throw new ApiError(405, 'METHOD_NOT_ALLOWED', 'The MCP endpoint is stateless: POST JSON-RPC messages');
    }
    const m = /^Bearer\s+(\S+)\s*$/i.exec(ctx.get('Authorization'));
    if (!m) throw unauthorized('Missing API key: send Authorization: Bearer <key>');
    const who = await identifyKey(ctx.deps.knex, m[1]);
    if ('error' in who) throw who.error === 'disabled' ? new ApiError(403, 'PROJECT_DISABLED', who.message) : unauthorized(who.message);
    const server = createMcpServer(ctx.deps, who);
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    ctx.respond = false;
    ctx.res.on('close', () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(ctx.req, ctx.res);
  };
}
