import { promises as dns } from 'node:dns';
import { authenticate } from 'mailauth';
import type { Config } from '../../lib/config';
import type { InboundAuth } from '../../db/inbound';

/**
 * SPF, DKIM and DMARC of a message to a project (mailauth), with the resolvers of DNS_SERVERS.
 * A check that cannot run (DNS down, a library failure) reads `temperror`: the message is still
 * taken, and only a DMARC `fail` withholds its event.
 */
export function inboundAuthenticator(config: Pick<Config, 'dnsServers'>, hostname: string) {
  const resolver = new dns.Resolver({ timeout: 2000, tries: 2 });
  if (config.dnsServers?.length) resolver.setServers(config.dnsServers);
  const resolve = (name: string, rrtype: string) => resolver.resolve(name, rrtype) as Promise<string[][] | string[]>;
  return async (raw: Buffer, session: { ip: string; helo: string; mailFrom: string }): Promise<InboundAuth> => {
    try {
      const r = await authenticate(raw, {
        ip: session.ip,
        helo: session.helo,
        sender: session.mailFrom,
        mta: hostname,
        resolver: resolve,
        disableArc: true,
        disableBimi: true,
      });
      const dkim = r.dkim?.results?.find((d) => d.status?.result === 'pass')?.status.result ?? r.dkim?.results?.[0]?.status?.result ?? 'none';
      return { spf: r.spf ? r.spf.status.result : 'none', dkim, dmarc: r.dmarc ? r.dmarc.status.result : 'none' };
    } catch {
      return { spf: 'temperror', dkim: 'temperror', dmarc: 'temperror' };
    }
  };
}
