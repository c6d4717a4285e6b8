/**
 * Messages per second the inbound SMTP server accepts (parse, SPF/DKIM/DMARC against a local DNS
 * server, the contact upsert and `email.received` committed before the 250), side by side with a
 * raw `smtp-server` that only drains DATA and stores nothing: the same client, connections and
 * messages. Prints both and the ratio. The events are not routed (no worker): acceptance is measured.
 * Usage: npx tsx bench/inbound.ts [seconds]
 */
import crypto from 'node:crypto';
import type { AddressInfo } from 'node:net';
import nodemailer from 'nodemailer';
import { SMTPServer } from 'smtp-server';
import { startStack, runLoad, benchProject, benchVerifiedDomain, fmt, type LoadResult } from './stack';
import { startInboundServer } from '../inbound/server';
import { startDnsServer } from '../test/helpers/dnsServer';
import { reply } from '../test/helpers/inboundMail';

const SECONDS = Number(process.argv[2] ?? 10);
const CONCURRENCY = 8;

async function rawServer(): Promise<{ port: number; close(): Promise<void> }> {
  const server = new SMTPServer({
    disabledCommands: ['AUTH', 'STARTTLS'],
    disableReverseLookup: true,
    logger: false,
    onData(stream, _session, callback) {
      stream.on('data', () => undefined);
      stream.on('end', () => callback());
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  return { port: (server.server.address() as AddressInfo).port, close: () => new Promise((r) => server.close(() => r())) };
}

async function load(port: number, to: string, seconds: number): Promise<LoadResult> {
  // One pooled connection per lane, reused across messages, as a sending MTA keeps them.
  const pool = nodemailer.createTransport({
    host: '127.0.0.1',
    port,
    secure: false,
    ignoreTLS: true,
    pool: true,
    maxConnections: CONCURRENCY,
    maxMessages: 90,
  });
  try {
    return await runLoad(
      async (i) => {
        const from = `sender${i % 2000}@bench.example`;
        const info = await pool.sendMail({ envelope: { from, to: [to] }, raw: reply({ from, to, subject: `Re: order ${i}`, text: 'Thanks, received.' }) });
        return info.accepted.length === 1;
      },
      CONCURRENCY,
      seconds,
    );
  } finally {
    pool.close();
  }
}

async function main() {
  const dns = await startDnsServer();
  const stack = await startStack({ DNS_SERVERS: dns.address });
  const raw = await rawServer();
  const inbound = await startInboundServer(stack.deps, { port: 0, host: '127.0.0.1', limits: { connectionsPerIp: CONCURRENCY * 2 } });
  try {
    const p = await benchProject(stack);
    const domain = `bench-${crypto.randomBytes(3).toString('hex')}.example.com`;
    await benchVerifiedDomain(stack, p.projectId, domain);
    const to = `support@inbound.${domain}`;
    await load(inbound.port, to, 2);
    await load(raw.port, to, 2);
    // ABBA slices, so a drift of the machine over the run does not favour either side.
    const half = SECONDS / 2;
    const a1 = await load(raw.port, to, half);
    const b1 = await load(inbound.port, to, half);
    const b2 = await load(inbound.port, to, half);
    const a2 = await load(raw.port, to, half);
    const merge = (x: LoadResult, y: LoadResult): LoadResult => {
      const latencies = [...x.latencies, ...y.latencies].sort((m, n) => m - n);
      const seconds = x.seconds + y.seconds;
      const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor((q / 100) * latencies.length))] ?? 0;
      return {
        requests: x.requests + y.requests,
        errors: x.errors + y.errors,
        seconds,
        perSecond: (x.requests + y.requests) / seconds,
        p50: at(50),
        p99: at(99),
        latencies,
      };
    };
    const floor = merge(a1, a2);
    const ours = merge(b1, b2);
    console.log(`inbound bench, ${CONCURRENCY} connections, ${SECONDS}s each (ABBA slices)`);
    console.log(`  raw smtp-server (stores nothing) : ${fmt(floor).replace(/req\/s/, 'msg/s')}`);
    console.log(`  inbound server (parse, auth, commit): ${fmt(ours).replace(/req\/s/, 'msg/s')}`);
    console.log(`  ratio inbound / raw              : ${(ours.perSecond / floor.perSecond).toFixed(2)}`);
  } finally {
    await inbound.close();
    await raw.close();
    await stack.stop();
    await dns.stop();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
