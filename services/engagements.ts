import type { Knex } from 'knex';
import type { Config } from '../lib/config';
import { trackedLink } from '../db/tracking';
import { uuid } from '../lib/ids';
import { verifyTrackingToken } from './trackingTokens';
import type { Runtime } from './runtime';
import { isMachineAgent } from './machineAgents';

type Deps = { knex: Knex; config: Pick<Config, 'jwtSecret'>; runtime: Pick<Runtime, 'engagements'> };

/** How a hit arrived: a HEAD is a machine checking, never a reader; the agent tells known scanners. */
export interface HitMeta {
  head: boolean;
  userAgent?: string;
}

/**
 * An open pixel fetched: queued for recording (services/engagementBatcher.ts), nothing awaited.
 * False when the token is not one we signed.
 */
export function recordOpen(deps: Deps, token: string, meta: HitMeta): boolean {
  const target = verifyTrackingToken(deps.config.jwtSecret, 'open', token);
  if (!target) return false;
  deps.runtime.engagements.enqueue({
    id: uuid(),
    emailId: target.emailId,
    kind: 'open',
    at: new Date(),
    head: meta.head,
    scanner: isMachineAgent(meta.userAgent),
  });
  return true;
}

/**
 * A tracked link followed: the URL the email's link led to, read from the email row (the token only
 * names the email and the link's index), and the click queued for recording. Null for a token we
 * did not sign or a link the email does not have: never a redirect anywhere else.
 */
export async function followClick(deps: Deps, token: string, meta: HitMeta): Promise<string | null> {
  const target = verifyTrackingToken(deps.config.jwtSecret, 'click', token);
  if (!target || target.link === undefined) return null;
  const url = await trackedLink(deps.knex, target.emailId, target.link);
  if (!url) return null;
  deps.runtime.engagements.enqueue({
    id: uuid(),
    emailId: target.emailId,
    kind: 'click',
    link: target.link,
    at: new Date(),
    head: meta.head,
    scanner: isMachineAgent(meta.userAgent),
  });
  return url;
}
