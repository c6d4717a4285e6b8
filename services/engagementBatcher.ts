import type { Knex } from 'knex';
import type { Logger } from '../lib/logger';
import type { EngagementHit } from '../db/tracking';
import { recordEngagements } from '../db/emailStates';
import type { EmailStatus } from '../db/emails';
import type { EventHandOff } from './events';
import { movesFrom } from './providerEvents';
import { MACHINE_WINDOW_SECONDS } from './machineAgents';

/** Flush after this many hits, or this long after the first one queued. */
const MAX_BATCH = 500;
const MAX_DELAY_MS = 100;

// The provider events' order, minus the hand-over's own states: a reader can open a message the
// relay took before our SENDING → SENT commit lands, and moving the row then would keep that commit
// (which only moves SENDING rows) from recording the send. The milestone is set all the same.
const settled = (to: EmailStatus) => movesFrom(to).filter((s) => s !== 'QUEUED' && s !== 'SENDING');
const RULES = { machineWindowSeconds: MACHINE_WINDOW_SECONDS, toOpened: settled('OPENED'), toClicked: settled('CLICKED') };

type Deps = { knex: Knex; events: EventHandOff; log: Pick<Logger, 'warn'> };

/**
 * Gathers the opens and clicks the tracking routes hear and records each gathering with one
 * set-based statement (db/emailStates recordEngagements), then hands the `email.opened` and
 * `email.clicked` events it wrote to one `routeEventBatch` per project, as /v1/track's events are.
 * The pixel and the redirect answer without waiting for any of it: a reader's click costs one
 * primary-key read. The price is that hits of the last tenth of a second before a crash are lost,
 * which counts a few opens short, never a send.
 */
export class EngagementBatcher {
  private queued: EngagementHit[] = [];
  private timer: NodeJS.Timeout | null = null;
  private inFlight = new Set<Promise<void>>();

  constructor(private readonly deps: Deps) {}

  enqueue(hit: EngagementHit): void {
    this.queued.push(hit);
    if (this.queued.length >= MAX_BATCH) this.flush();
    else this.timer ??= setTimeout(() => this.flush(), MAX_DELAY_MS);
  }

  private flush(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    const hits = this.queued;
    this.queued = [];
    if (!hits.length) return;
    const done = this.record(hits);
    this.inFlight.add(done);
    void done.finally(() => this.inFlight.delete(done));
  }

  private async record(hits: EngagementHit[]): Promise<void> {
    let events: Awaited<ReturnType<typeof recordEngagements>>['events'];
    try {
      ({ events } = await recordEngagements(this.deps.knex, hits, RULES));
    } catch (err) {
      this.deps.log.warn({ err, hits: hits.length }, 'recording opens and clicks failed; these hits are lost');
      return;
    }
    // Committed: the maintenance sweep routes them if this start fails.
    await this.deps.events.handOff(events, { batch: true, context: { source: 'opens and clicks' } });
  }

  /** Records everything queued (at shutdown, and in tests). */
  async drain(): Promise<void> {
    this.flush();
    await Promise.all(this.inFlight);
  }
}
