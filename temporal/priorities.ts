/**
 * Temporal task priorities (server 1.29 dispatches a backlogged task queue by `priorityKey`, 1 first,
 * 5 last, default 3; activities inherit their workflow's). When the workers fall behind, a person
 * waiting for a password reset or a receipt goes ahead of event routing and bulk work. They order
 * only what waits at the server: a task a worker already took runs beside the others.
 */
export const PRIORITY = {
  /** Transactional mail: `/v1/send` batches, single deliveries (system mail, test sends, SEND_EMAIL steps). */
  transactional: 1,
  /** Campaign sends: many emails, none of them awaited by a person at that moment. */
  bulk: 4,
} as const;
