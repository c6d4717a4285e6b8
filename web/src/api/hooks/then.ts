import type { MutationMeta } from '@tanstack/react-query';

/**
 * What a screen adds to a mutation hook: the toast's words (`meta`, components/notify.tsx) and what it
 * does once the API answered (close a dialog, navigate). The hook itself keeps the cache right: it writes
 * the answer where a query holds it and refreshes the lists it changes, while `onSuccess` runs.
 */
export interface Then<Data, Variables = void> {
  meta?: MutationMeta;
  onSuccess?: (data: Data, variables: Variables) => unknown;
}
