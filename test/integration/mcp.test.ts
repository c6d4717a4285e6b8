import path from 'node:path';
import type { AddressInfo } from 'node:net';
import type http from 'node:http';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { startHarness, createProjectFixture, bearer, Harness, ProjectFixture } from '../helpers/harness';
import { verifiedDomain, uniqueEmail } from '../helpers/fixtures';

/**
 * The MCP server (docs/mcp.md) through the SDK's own client, over both transports: the tools are
 * the routes' services, and a tool beyond the key's scopes is refused by name.
 */

let h: Harness;
let p: ProjectFixture;
let server: http.Server;
let base: string;

beforeAll(async () => {
  h = await startHarness();
  p = await createProjectFixture(h, 'mcp');
  await verifiedDomain(h, p.projectId, 'mcp.example.com');
  server = h.built.app.listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise((r) => server?.close(r));
  await h?.stop();
});

const TOOL_NAMES = ['campaign_stats', 'create_campaign_draft', 'find_contacts', 'get_contact', 'list_templates', 'list_workflows', 'send_email', 'track_event'];

async function keyWith(scopes: string[]): Promise<string> {
  const res = await h.http
    .post('/api-keys')
    .set(bearer(p.secretKey))
    .send({ name: `mcp ${scopes.join('+')}`, scopes });
  expect(res.status).toBe(201);
  return res.body.secret;
}

async function httpClient(key: string): Promise<Client> {
  const client = new Client({ name: 'test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${key}` } } }));
  return client;
}

const textOf = (r: any): string => r.content[0].text;
const sendArgs = (to: string) => ({ to, from: 'agent@mcp.example.com', subject: 'From an agent', body: '<p>Hello</p>' });

describe('MCP over streamable HTTP at /mcp', () => {
  it('lists the tools and sends through send_email: the email is in GET /emails/:id', async () => {
    const client = await httpClient(await keyWith(['send']));
    try {
      const tools = await client.listTools();
      expect(tools.tools.map((t) => t.name).sort()).toEqual(TOOL_NAMES);
      expect(tools.tools.find((t) => t.name === 'send_email')!.inputSchema.properties).toHaveProperty('subject');
      const to = uniqueEmail('mcp');
      const sent = await client.callTool({ name: 'send_email', arguments: sendArgs(to) });
      expect(sent.isError).toBeFalsy();
      const [email] = JSON.parse(textOf(sent)).emails;
      const row = await h.http.get(`/emails/${email.email}`).set(bearer(p.secretKey));
      expect(row.status).toBe(200);
      expect(JSON.stringify(row.body)).toContain(to);
    } finally {
      await client.close();
    }
  });

  it('refuses a tool beyond the key’s scopes with an error naming the scope, and sends nothing', async () => {
    const client = await httpClient(await keyWith(['contacts:read']));
    try {
      const to = uniqueEmail('refused');
      const refused = await client.callTool({ name: 'send_email', arguments: sendArgs(to) });
      expect(refused.isError).toBe(true);
      expect(textOf(refused)).toBe('This API key lacks the send scope');
      expect(await h.deps.knex('contacts').where({ project_id: p.projectId, email: to })).toHaveLength(0);
      const found = await client.callTool({ name: 'find_contacts', arguments: {} });
      expect(found.isError).toBeFalsy();
      expect(JSON.parse(textOf(found))).toHaveProperty('data');
      expect(textOf(await client.callTool({ name: 'list_workflows', arguments: {} }))).toBe('This API key lacks the full scope');
    } finally {
      await client.close();
    }
  });

  it('creates campaigns as drafts only, and answers bad input with a tool error, not a crash', async () => {
    const client = await httpClient(await keyWith(['campaigns']));
    try {
      const made = await client.callTool({
        name: 'create_campaign_draft',
        arguments: { name: 'Agent draft', subject: 'Hi', from: 'news@mcp.example.com', body: '<p>Hi</p>', audienceType: 'ALL' },
      });
      expect([made.isError ?? false, textOf(made)]).toEqual([false, expect.any(String)]);
      const campaign = JSON.parse(textOf(made));
      expect(campaign.status).toBe('DRAFT');
      const stats = await client.callTool({ name: 'campaign_stats', arguments: { id: campaign.id } });
      expect(stats.isError).toBeFalsy();
      const bad = await client.callTool({ name: 'campaign_stats', arguments: { id: 'nope' } });
      expect(bad.isError).toBe(true);
    } finally {
      await client.close();
    }
  });

  it('answers 401 without a key, or with an unknown one', async () => {
    const init = {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } },
    };
    const none = await h.http.post('/mcp').set('Accept', 'application/json, text/event-stream').send(init);
    expect([none.status, none.body.error.code]).toEqual([401, 'UNAUTHORIZED']);
    const bad = await h.http.post('/mcp').set(bearer('key_unknown')).set('Accept', 'application/json, text/event-stream').send(init);
    expect(bad.status).toBe(401);
  });
});

describe('MCP over stdio (npm run mcp)', () => {
  it('lists the tools, sends with a send key and refuses send_email to a key without it', async () => {
    const run = async (key: string, work: (c: Client) => Promise<void>) => {
      const client = new Client({ name: 'test', version: '1.0.0' });
      const env = {
        ...(process.env as Record<string, string>),
        API_KEY: key,
        TEMPORAL_ADDRESS: process.env.TEST_TEMPORAL_ADDRESS!,
        TEMPORAL_TASK_QUEUE: h.taskQueue,
        SEND_RATE_PER_SECOND: '1000000',
      };
      await client.connect(
        new StdioClientTransport({ command: 'npx', args: ['tsx', 'mcp/stdio.ts'], cwd: path.join(__dirname, '../..'), env, stderr: 'inherit' }),
      );
      try {
        await work(client);
      } finally {
        await client.close();
      }
    };
    await run(await keyWith(['send']), async (c) => {
      expect((await c.listTools()).tools.map((t) => t.name).sort()).toEqual(TOOL_NAMES);
      const to = uniqueEmail('stdio');
      const sent = await c.callTool({ name: 'send_email', arguments: sendArgs(to) });
      expect([sent.isError ?? false, textOf(sent)]).toEqual([false, expect.any(String)]);
      const [email] = JSON.parse(textOf(sent)).emails;
      expect((await h.http.get(`/emails/${email.email}`).set(bearer(p.secretKey))).status).toBe(200);
    });
    await run(await keyWith(['track']), async (c) => {
      const refused = await c.callTool({ name: 'send_email', arguments: sendArgs(uniqueEmail('no')) });
      expect([refused.isError, textOf(refused)]).toEqual([true, 'This API key lacks the send scope']);
    });
  }, 300_000);
});
