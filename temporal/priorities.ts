/**
 * Temporal task priorities (server 1.29 dispatches a backlogged task queue by `priorityKey`, 1 first,
 * 5 last, default 3; activities inherit their workflow's). When the workers fall behind, a person
 * waiting for a password reset or a receipt goes ahead of event routing and campaigns. They order
 * only what waits at the server: a task a worker already took runs beside the others.
 *
 * Everything else keeps the default on purpose. The server empties a priority level before it
 * serves the next, so a level below the default would starve while tracked events keep arriving:
 * campaigns at 4 stalled for minutes under the test suite's steady routing load.
 */
export const PRIORITY = {
  /** Transactional mail: `/v1/send` batches, single deliveries (system mail, test sends). */
  transactional: 1,
} as const;
