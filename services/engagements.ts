import type { Knex } from 'knex';
import type { Config } from '../lib/config';
import { trackedLink } from '../db/tracking';
import { uuid } from '../lib/ids';
import { verifyTrackingToken } from './trackingTokens';
import type { Runtime } from './runtime';
import { isMachineAgent } from './machineAgents';

type Deps = { knex: Knex; config: Pick<Config, 'jwtSecret' | 'trackingLinkDays'>; runtime: Pick<Runtime, 'engagements'> };

/** How a hit arrived: a HEAD is a machine checking, never a reader; the agent tells known scanners. */
export interface HitMeta {
  head: boolean;
  userAgent?: string;
  /** The host name the request was made to (no port), lower case: which tracking domain it came through. */
  host?: string;
}

const DAY_MS = 24 * 60 * 60 * 1000;

/** A followed link: where it leads, and whether to redirect there or show the interstitial page. */
export interface FollowedClick {
  url: string;
  /**
   * False for a link older than TRACKING_LINK_DAYS reached through any host but its project's own
   * verified tracking domain: on the shared host, an old link answers a page naming the destination
   * instead of a redirect, so a tenant's old mail cannot serve as a lasting open redirect on our name.
   */
  redirect: boolean;
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
 * names the email and the link's index), whether to redirect there (`FollowedClick.redirect`), and
 * the click queued for recording. Null for a token we did not sign or a link the email does not
 * have: never a redirect anywhere else. The click counts whether the answer is a redirect or the
 * interstitial page: the reader clicked the link in their mail either way (docs/tracking.md).
 */
export async function followClick(deps: Deps, token: string, meta: HitMeta): Promise<FollowedClick | null> {
  const target = verifyTrackingToken(deps.config.jwtSecret, 'click', token);
  if (!target || target.link === undefined) return null;
  const link = await trackedLink(deps.knex, target.emailId, target.link);
  if (!link) return null;
  deps.runtime.engagements.enqueue({
    id: uuid(),
    emailId: target.emailId,
    kind: 'click',
    link: target.link,
    at: new Date(),
    head: meta.head,
    scanner: isMachineAgent(meta.userAgent),
  });
  const ownDomain = link.ownDomain !== null && meta.host === link.ownDomain;
  const fresh = Date.now() - link.sentAt.getTime() <= deps.config.trackingLinkDays * DAY_MS;
  return { url: link.url, redirect: ownDomain || fresh };
}
