import { Connection } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import type { SearchAttributeName } from '../services/temporal';

/** Search attributes every execution may set so operators can filter in the Temporal Web UI. */
const SEARCH_ATTRIBUTES = {
  ProjectId: 'Keyword',
  ContactId: 'Keyword',
  WorkflowDefinitionId: 'Keyword',
  CampaignId: 'Keyword',
  /** The step type an automation execution is at (upserted as it moves). */
  StepType: 'Keyword',
} as const satisfies Record<SearchAttributeName, 'Keyword'>;

/** As `temporal server start-dev --search-attribute` flags. */
export function devServerSearchAttributeFlags(): string[] {
  return Object.entries(SEARCH_ATTRIBUTES).flatMap(([name, type]) => ['--search-attribute', `${name}=${type}`]);
}

const TYPE = temporal.api.enums.v1.IndexedValueType;

/** Registers missing search attributes on a real cluster (the dev server gets them as start flags). */
export async function ensureSearchAttributes(connection: Connection, namespace: string): Promise<void> {
  const existing = await connection.operatorService.listSearchAttributes({ namespace });
  const missing: Record<string, temporal.api.enums.v1.IndexedValueType> = {};
  for (const [name, type] of Object.entries(SEARCH_ATTRIBUTES)) {
    if (!existing.customAttributes?.[name]) missing[name] = TYPE[`INDEXED_VALUE_TYPE_${type.toUpperCase()}` as keyof typeof TYPE] as any;
  }
  if (Object.keys(missing).length === 0) return;
  try {
    await connection.operatorService.addSearchAttributes({ namespace, searchAttributes: missing });
  } catch (err: any) {
    // Another replica may have added them between our list and add.
    if (!/already exists/i.test(String(err?.message))) throw err;
  }
}
