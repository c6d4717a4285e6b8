import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { Deps } from '../api/context';
import { callTool, type McpPrincipal, TOOLS } from './tools';

/**
 * An MCP server for one key (docs/mcp.md): every tool is listed, and a call beyond the key's
 * scopes is refused with a tool error naming the scope. Built per connection (stdio) or per
 * request (the stateless HTTP transport at /mcp).
 */
export function createMcpServer(deps: Deps, who: McpPrincipal): McpServer {
  const server = new McpServer({ name: 'email-platform', version: '1.0.0' });
  for (const t of TOOLS) {
    server.registerTool(
      t.name,
      { description: `${t.description} (scope: ${t.scope})`, inputSchema: t.input as any },
      // The SDK has validated against the same schema; callTool parses again for the route's defaults.
      (args: unknown) => callTool(deps, who, t, args) as any,
    );
  }
  return server;
}
