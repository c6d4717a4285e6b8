import type { Socket } from 'node:net';
import dns2 from 'dns2';

const { Packet } = dns2;

export type DnsRecordType = 'TXT' | 'MX' | 'A' | 'AAAA' | 'CNAME';
export interface MxValue {
  exchange: string;
  priority: number;
}
/** A TXT value given as an array is sent as those separate character-strings (as long records are). */
export type TxtValue = string | string[];

export interface TestDnsServer {
  /** `127.0.0.1:<port>`, ready for DNS_SERVERS. */
  address: string;
  /** Replaces the records of one type at `name`; an empty list removes them (the name stays known: NODATA). */
  set(name: string, type: 'TXT', values: TxtValue[]): void;
  set(name: string, type: 'MX', values: MxValue[]): void;
  set(name: string, type: 'A' | 'AAAA', values: string[]): void;
  /** An alias: answered to CNAME questions only (the resolver is not led on to the target). */
  set(name: string, type: 'CNAME', values: string[]): void;
  clear(): void;
  stop(): Promise<void>;
}

type DnsHandler = dns2.DnsHandler;
type Zone = Map<string, Partial<Record<DnsRecordType, unknown[]>>>;

const key = (name: string) => name.toLowerCase().replace(/\.$/, '');

// A character-string holds at most 255 octets, so longer TXT values go out in pieces, as real zones do.
function txtChunks(value: TxtValue): Buffer[] {
  if (Array.isArray(value)) return value.map((v) => Buffer.from(v));
  const bytes = Buffer.from(value);
  const chunks: Buffer[] = [];
  for (let i = 0; i < bytes.length || i === 0; i += 255) chunks.push(bytes.subarray(i, i + 255));
  return chunks;
}

function rdata(type: DnsRecordType, value: unknown): Record<string, unknown> {
  switch (type) {
    case 'TXT':
      return { data: txtChunks(value as TxtValue) };
    case 'MX':
      return { exchange: (value as MxValue).exchange, priority: (value as MxValue).priority };
    case 'CNAME':
      return { domain: value as string };
    default:
      return { address: value as string };
  }
}

/** Binds UDP on a free port, then TCP on the same number (clients retry truncated answers over TCP there). */
async function listen(handle: DnsHandler, attempts = 5): Promise<{ port: number; close(): Promise<void> }> {
  const udp = dns2.createUDPServer(handle);
  await udp.listen(0, '127.0.0.1');
  const { port } = udp.address();
  const tcp = dns2.createTCPServer(handle);
  const sockets = new Set<Socket>();
  tcp.on('connection', (s: Socket) => {
    sockets.add(s);
    s.once('close', () => sockets.delete(s));
  });
  try {
    await new Promise<void>((resolve, reject) => {
      tcp.once('error', reject);
      tcp.listen(port, '127.0.0.1', () => resolve());
    });
  } catch (err: any) {
    udp.close();
    if (err?.code === 'EADDRINUSE' && attempts > 1) return listen(handle, attempts - 1);
    throw err;
  }
  return {
    port,
    close: async () => {
      // The TCP server keeps idle connections open for seconds; the test is done with them.
      for (const s of sockets) s.destroy();
      await Promise.all([new Promise<void>((r) => udp.close(() => r())), new Promise<void>((r) => tcp.close(() => r()))]);
    },
  };
}

/** A DNS server on 127.0.0.1 answering from an in-memory zone that tests change as they go. */
export async function startDnsServer(): Promise<TestDnsServer> {
  const zone: Zone = new Map();
  const handle: DnsHandler = (request, send) => {
    const response = Packet.createResponseFromRequest(request);
    response.header.aa = 1;
    const [question] = request.questions;
    const entry = question && zone.get(key(question.name));
    if (!entry) {
      response.header.rcode = Packet.RCODE.NXDOMAIN;
    } else {
      const type = Packet.TYPE_NAME[question.type] as DnsRecordType;
      for (const value of entry[type] ?? []) {
        response.answers.push(Packet.createResourceFromQuestion(question, { type: question.type, class: Packet.CLASS.IN, ttl: 1, ...rdata(type, value) }));
      }
    }
    void send(response).catch(() => undefined);
  };
  const server = await listen(handle);

  return {
    address: `127.0.0.1:${server.port}`,
    set(name: string, type: DnsRecordType, values: unknown[]) {
      const entry = zone.get(key(name)) ?? {};
      entry[type] = [...values];
      zone.set(key(name), entry);
    },
    clear: () => zone.clear(),
    stop: () => server.close(),
  } as TestDnsServer;
}

export const start = startDnsServer;
