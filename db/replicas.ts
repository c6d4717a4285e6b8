import type { Knex } from 'knex';
import { createKnex, type KnexOptions } from './knex';
import { noteStatement, scopeWrote, writeListeners } from './writeScope';

export { withWriteScope } from './writeScope';

/**
 * Streaming replicas of the primary for heavy reads (docs/capacity.md "Read replicas"). This module
 * knows where a read may go; services/reads.ts decides which reads ask it.
 *
 * A replica serves a read only when it is at most `maxLagMs` behind, measured at most once per
 * `checkEveryMs` (one tiny query on the primary and one per replica, not one per read), and only
 * when the caller has not written in the same request or, per project, within the last
 * `maxLagMs + checkEveryMs` (the longest a replica judged fresh can still miss a commit).
 */
export interface ReplicaSetOptions {
  maxLagMs: number;
  /** How long one lag measurement is trusted (ms). */
  checkEveryMs?: number;
  pool?: KnexOptions;
}

interface Replica {
  url: string;
  knex: Knex;
  /** The last measurement: lag in ms (Infinity when unreachable), and when it was taken. */
  lagMs: number;
  checkedAt: number;
  checking?: Promise<void>;
}

/** How long one lag check may take before the replica counts as unreachable (ms). */
const MEASURE_TIMEOUT_MS = 2_000;

export type ReadTarget = 'primary' | 'replica';

export class ReplicaSet {
  private readonly replicas: Replica[];
  private readonly maxLagMs: number;
  private readonly checkEveryMs: number;
  /** Project id → when one of its requests last wrote on the primary (this process only). */
  private readonly recentWrites = new Map<string, number>();
  private next = 0;

  constructor(
    private readonly primary: Knex,
    urls: readonly string[],
    opts: ReplicaSetOptions,
  ) {
    this.maxLagMs = opts.maxLagMs;
    this.checkEveryMs = opts.checkEveryMs ?? 1_000;
    this.replicas = urls.map((url) => ({ url, knex: createKnex(url, opts.pool), lagMs: Infinity, checkedAt: -Infinity }));
    primary.on('query', this.onQuery);
    writeListeners.add(this.noteWrite);
  }

  /** Every statement knex runs on the primary's pool passes here. */
  private readonly onQuery = (q: { sql?: string }) => {
    if (q.sql) noteStatement(q.sql);
  };

  get size(): number {
    return this.replicas.length;
  }

  /** The knex pools of the replicas (for metrics and shutdown). */
  get pools(): Knex[] {
    return this.replicas.map((r) => r.knex);
  }

  /** Marks a project as just written (also for writes made outside a request scope, e.g. by a caller that knows). */
  readonly noteWrite = (projectId: string): void => {
    const now = Date.now();
    this.recentWrites.set(projectId, now);
    // Keep the map bounded: entries past the window say nothing any more.
    if (this.recentWrites.size > 10_000) {
      for (const [id, at] of this.recentWrites) if (now - at > this.writeWindowMs) this.recentWrites.delete(id);
    }
  };

  /** How long after a project's write its reads stay on the primary: a replica judged fresh may still miss it this long. */
  private get writeWindowMs(): number {
    return this.maxLagMs + this.checkEveryMs;
  }

  /**
   * Where a heavy read for `projectId` goes, and the knex to run it on: a fresh replica (round
   * robin) unless the current scope wrote, the project wrote within the window, or none is fresh.
   * `writtenAt`: when the data to read was last written by another process (a worker's job that
   * finished), which no scope of this process saw: within the window, the read goes to the primary.
   */
  async choose(projectId: string | undefined, writtenAt?: Date | null): Promise<{ knex: Knex; target: ReadTarget; reason?: string }> {
    if (this.replicas.length === 0) return { knex: this.primary, target: 'primary', reason: 'none' };
    if (scopeWrote()) return { knex: this.primary, target: 'primary', reason: 'wrote' };
    const at = Math.max((projectId && this.recentWrites.get(projectId)) || -Infinity, writtenAt?.getTime() ?? -Infinity);
    if (Date.now() - at <= this.writeWindowMs) return { knex: this.primary, target: 'primary', reason: 'recent_write' };
    for (let i = 0; i < this.replicas.length; i++) {
      const replica = this.replicas[(this.next + i) % this.replicas.length];
      if ((await this.lagOf(replica)) <= this.maxLagMs) {
        this.next = (this.next + i + 1) % this.replicas.length;
        return { knex: replica.knex, target: 'replica' };
      }
    }
    return { knex: this.primary, target: 'primary', reason: 'lag' };
  }

  /** The replica's lag, measured again when the last measurement is older than checkEveryMs. */
  private async lagOf(replica: Replica): Promise<number> {
    if (Date.now() - replica.checkedAt < this.checkEveryMs) return replica.lagMs;
    replica.checking ??= this.measure(replica).finally(() => {
      replica.checking = undefined;
    });
    await replica.checking;
    return replica.lagMs;
  }

  /**
   * Lag = 0 when the replica has replayed everything the primary had written when we asked (an idle
   * primary writes no WAL, so the replica's last replayed commit may be old without it being
   * behind); otherwise the age of its last replayed commit. The primary's position is read first,
   * so "replayed up to it" means "saw every commit made before this check".
   */
  private async measure(replica: Replica): Promise<void> {
    let lag = Infinity;
    let timer: NodeJS.Timeout | undefined;
    // A replica that hangs (a network partition) must not hold reads: past this, it counts as unreachable.
    const hung = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error('replica lag check timed out')), MEASURE_TIMEOUT_MS);
    });
    try {
      lag = await Promise.race([this.lagNow(replica), hung]);
    } catch {
      // Unreachable or failing: its reads go to the primary until a later check succeeds.
    } finally {
      clearTimeout(timer);
    }
    replica.lagMs = lag;
    replica.checkedAt = Date.now();
  }

  private async lagNow(replica: Replica): Promise<number> {
    // The insert position, not pg_current_wal_lsn() (the write position): with synchronous_commit
    // off a commit returns before its WAL is written, and a replica "caught up" to the write
    // position could still lack it.
    const primary = await this.primary.raw('select pg_current_wal_insert_lsn()::text as lsn');
    const lsn: string = primary.rows[0].lsn;
    const r = await replica.knex.raw(
      `select pg_is_in_recovery() as standby,
                coalesce(pg_last_wal_replay_lsn() >= ?::pg_lsn, false) as caught_up,
                coalesce(extract(epoch from (now() - pg_last_xact_replay_timestamp())) * 1000, 'Infinity'::float8) as age_ms`,
      [lsn],
    );
    const row = r.rows[0];
    // A server that is not (or no longer) a standby is not a copy of this primary: never read it.
    if (!row.standby) return Infinity;
    return row.caught_up ? 0 : Math.max(0, Number(row.age_ms));
  }

  async destroy(): Promise<void> {
    this.primary.off('query', this.onQuery);
    writeListeners.delete(this.noteWrite);
    await Promise.all(this.replicas.map((r) => r.knex.destroy()));
  }
}

/** The replica set of a process's config, or undefined when DATABASE_REPLICA_URL names none. */
export function createReplicaSet(
  primary: Knex,
  config: { databaseReplicaUrls: readonly string[]; replicaMaxLagMs: number },
  pool?: KnexOptions,
): ReplicaSet | undefined {
  if (config.databaseReplicaUrls.length === 0) return undefined;
  return new ReplicaSet(primary, config.databaseReplicaUrls, { maxLagMs: config.replicaMaxLagMs, pool });
}
