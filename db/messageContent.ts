/** The message-content columns templates and campaigns share (emails keep the sender as `from_email`). */
export interface MessageContentColumns<Type extends string = string> {
  subject: string;
  body: string;
  /** Liquid source of the text/plain part; null: generated from the rendered body (services/plainText.ts). */
  text: string | null;
  from: string;
  from_name: string | null;
  reply_to: string | null;
  type: Type;
}
