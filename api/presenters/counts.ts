import type { Counted } from '../../db/contactCounts';

/** The additive `estimated: true` of a count the API estimated (docs/capacity.md "Estimated counts"); absent when the count is exact. */
export const estimatedFlag = (estimated: boolean): { estimated?: true } => (estimated ? { estimated: true } : {});

/** A count as the count routes answer it (`POST /contacts/count`, `GET /campaigns/:id/audience`): `{ count }`, flagged when estimated. */
export const presentCount = (c: Counted) => ({ count: c.count, ...estimatedFlag(c.estimated) });
