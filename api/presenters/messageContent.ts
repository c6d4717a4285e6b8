import type { MessageContentColumns } from '../../db/messageContent';

/** The shared content fields of a template or campaign response (api/schemas/common `MessageContentOut`). */
export function presentMessageContent<T extends string>(row: MessageContentColumns<T>) {
  return { subject: row.subject, body: row.body, text: row.text ?? null, from: row.from, fromName: row.from_name, replyTo: row.reply_to, type: row.type };
}
