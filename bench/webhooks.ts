/**
 * N events (default 10,000) to one webhook endpoint through the real path: events committed, handed
 * to routing by the API's batcher, `routeEventBatch` queues the deliveries (one statement per
 * batch) and wakes the endpoint's `webhookDelivery` workflow, whose rounds (in a separate worker
 * process) POST signed messages to a receiver on loopback. Prints:
 *   - deliveries per second (hand-off → every message DELIVERED), with the per-endpoint rate
 *     limit lifted (WEBHOOK_ENDPOINT_RATE_PER_SECOND, argument 2, default 100000) so the pipeline's
 *     own capacity shows;
 *   - Temporal actions per delivered message, counted from the server's histories (bench/actions.ts
 *     says which events count) — for the delivery workflow alone and with the routing it shares
 *     with every other consequence of an event.
 * Usage: npx tsx bench/webhooks.ts [N] [ratePerSecond]
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { startStack, benchProject, startWorkerProcess, stopWorkerProcess } from './stack';
import { recordEvents } from '../db/events';
import { upsertContact } from '../db/contactWriters';
import { countActions, formatActions, noActions, totalActions } from './actions';

const N = Number(process.argv[2] ?? 10_000);
const RATE = process.argv[3] ?? '100000';

async function main() {
  const env = { WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_ENDPOINT_RATE_PER_SECOND: RATE };
  const stack = await startStack(env);
  const seen = new Set<string>();
  let calls = 0;
  let sample: { body: string; headers: Record<string, string> } | null = null;
  const receiver = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      calls++;
      seen.add(String(req.headers['webhook-id']));
      sample ??= { body: Buffer.concat(chunks).toString('utf8'), headers: req.headers as Record<string, string> };
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  const worker = startWorkerProcess(stack, env);
  try {
    const p = await benchProject(stack);
    const created = await fetch(`${stack.url}/webhook-endpoints`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${p.secretKey}` },
      body: JSON.stringify({ url: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`, events: ['order.paid'] }),
    });
    const endpoint = (await created.json()) as { id: string; secret: string };
    const contact = await upsertContact(stack.knex, { projectId: p.projectId, email: 'buyer@bench.example', defaultSubscribed: true });
    const events = await recordEvents(
      stack.knex,
      Array.from({ length: N }, (_, i) => ({ projectId: p.projectId, contactId: contact.contact.id, name: 'order.paid', data: { orderId: i, total: 42 } })),
    );
    // Warm the worker (bundle, connections) with a test message before the clock starts.
    await fetch(`${stack.url}/webhook-endpoints/${endpoint.id}/test`, { method: 'POST', headers: { authorization: `Bearer ${p.secretKey}` } });
    while (calls === 0) await new Promise((r) => setTimeout(r, 100));
    seen.clear();
    calls = 0;
    sample = null;
    const client = await stack.temporal.client();
    const startedAt = new Date();
    const t0 = performance.now();
    stack.deps.runtime.events.queue(events);
    for (;;) {
      const [{ n }] = await stack.knex('webhook_deliveries').where({ endpoint_id: endpoint.id, status: 'DELIVERED', type: 'order.paid' }).count({ n: '*' });
      if (Number(n) >= N) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    const seconds = (performance.now() - t0) / 1000;
    new Webhook(endpoint.secret).verify(sample!.body, sample!.headers);

    // The project's runs started since the clock started, and the delivery workflow the warm-up
    // started: events count from the moment the clock started, so the warm-up round stays out
    // (and so do the worker's scheduled maintenance runs, which carry no ProjectId).
    const tally = await countActions(
      client,
      `ProjectId = '${p.projectId}' AND (StartTime >= '${startedAt.toISOString()}' OR WorkflowType = 'webhookDelivery')`,
      {
        since: startedAt,
        groupBy: (w) => (w.type === 'webhookDelivery' ? 'delivery' : 'routing'),
      },
    );
    const delivery = tally.groups.delivery ?? noActions();
    const all = tally.total;
    console.log(`webhooks bench: ${N} events to one endpoint, rate limit ${RATE}/s`);
    console.log(`  delivered          : ${seen.size} distinct messages in ${calls} calls, ${seconds.toFixed(1)} s → ${(N / seconds).toFixed(0)} deliveries/s`);
    console.log(
      `  Temporal actions   : delivery workflow ${totalActions(delivery)} (${(totalActions(delivery) / N).toFixed(4)} per message); with routing ${totalActions(all)} (${(totalActions(all) / N).toFixed(4)} per message), ${tally.executions} executions`,
    );
    console.log(`    delivery alone   : ${formatActions(delivery, N, 'message')}`);
    console.log(`    with routing     : ${formatActions(all, N, 'message')}`);
    console.log(`  history events     : delivery ${tally.historyEvents.delivery ?? 0}, routing ${tally.historyEvents.routing ?? 0}`);
  } finally {
    await stopWorkerProcess(worker);
    await new Promise((r) => receiver.close(r));
    await stack.stop();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
