import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

/**
 * A streaming replica of a Postgres server: `pg_basebackup -R` (base copy plus standby.signal and
 * primary_conninfo) into a temp dir, started with Debian's pg_ctl on a free port. As root the
 * server binaries run as the `postgres` OS user (Postgres refuses root), like test/cluster/privatePostgres.ts.
 */
export interface StreamingReplica {
  port: number;
  url(database: string): string;
  /** Stops the server and removes its directory; safe to call twice. */
  destroy(): void;
}

const BIN = process.env.PG_BIN_DIR ?? '/usr/lib/postgresql/15/bin';

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

export async function startStreamingReplica(primaryPort: number): Promise<StreamingReplica> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-replica-'));
  const data = path.join(dir, 'data');
  const port = await freePort();
  const asRoot = process.getuid?.() === 0;
  if (asRoot) execFileSync('chown', ['-R', 'postgres:postgres', dir]);
  const run = (bin: string, args: string[]) => {
    const cmd = path.join(BIN, bin);
    return asRoot ? execFileSync('runuser', ['-u', 'postgres', '--', cmd, ...args], { stdio: 'pipe' }) : execFileSync(cmd, args, { stdio: 'pipe' });
  };
  let started = false;
  const destroy = () => {
    if (started) {
      try {
        run('pg_ctl', ['-D', data, '-m', 'immediate', '-w', '-t', '60', 'stop']);
      } catch {
        /* already stopped */
      }
      started = false;
    }
    fs.rmSync(dir, { recursive: true, force: true });
  };
  try {
    // -X stream: the WAL written during the copy comes along, so the copy starts consistent; --no-sync: a throwaway.
    run('pg_basebackup', ['-h', '127.0.0.1', '-p', String(primaryPort), '-U', 'postgres', '-D', data, '-R', '-X', 'stream', '--no-sync', '-c', 'fast']);
    // A hot standby needs max_connections at least the primary's (test/cluster/privatePostgres.ts sets 400).
    const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c hot_standby=on -c max_connections=400`;
    run('pg_ctl', ['-D', data, '-o', options, '-l', path.join(dir, 'server.log'), '-w', '-t', '60', 'start']);
    started = true;
  } catch (err) {
    destroy();
    throw err;
  }
  return { port, url: (database) => `postgres://postgres@127.0.0.1:${port}/${database}`, destroy };
}
