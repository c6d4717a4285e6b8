/**
 * The campaign's patch markers (docs/architecture.md, "Patch policy"): each names the change a
 * running execution started before it must not see.
 */

/**
 * Runs before this marker page one batch at a time, each batch finding where the next starts;
 * runs after it plan their batches' bounds first and keep `batchLanes` of them in flight.
 */
export const BATCH_LANES_PATCH = 'campaign-batch-lanes';

/**
 * Runs before this marker end after the audience pass; runs after it then hand over the recipients
 * the delivery controls deferred (quiet hours, each recipient's local time), each group when due.
 */
export const DEFERRED_PASS_PATCH = 'campaign-deferred-recipients';

/** Runs after this marker with a `sendRatePerMinute` send one batch at a time and wait between batches. */
export const SEND_RATE_PATCH = 'campaign-send-rate';

/**
 * Runs after this marker pass `sendRatePerMinute` to each paced batch, which spreads its recipients
 * evenly over its share of the minute (services/sendThrottle.ts evenPace), and no longer sleep after
 * it. Runs before it handed each batch over at once (a minute's worth in the same second) and slept
 * (handed over / rate) minutes afterwards.
 */
export const EVEN_PACE_PATCH = 'campaign-send-rate-even';

/**
 * Runs after this marker of a campaign with an A/B subject test pick the test group, hand it over,
 * wait `winnerAfter`, choose the winner and then hand over the rest. Asked only on that path, so
 * campaigns without a test issue the same commands as before it existed.
 */
export const AB_TEST_PATCH = 'campaign-ab-test';

/**
 * Runs after this marker that learn from a batch that the row is CANCELLED (the API's cancel writes
 * the row before it cancels the workflow, so a batch in flight can see it first) settle the rows
 * an attempt left and close as cancelled once the Temporal cancel arrived too. Runs before it
 * returned normally: the execution showed COMPLETED and its leftover rows stayed in flight.
 */
export const CANCELLED_ROW_PATCH = 'campaign-cancelled-row';
