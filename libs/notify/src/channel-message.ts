/** One message as each kind of channel receives it: what channel-senders.ts sends, whatever it says. */
export interface EmailAttachment {
  filename: string;
  content: string;
  contentType: string;
}

export interface EmailContent {
  subject: string;
  text: string;
  html: string;
  attachments?: EmailAttachment[];
}

export interface ChannelMessage {
  /** The delivery's id: the idempotency key receivers see (webhook-id, Message-ID). */
  deliveryId: string;
  /** Slack's incoming-webhook message (Block Kit). */
  slack: Record<string, unknown>;
  /** A Microsoft Teams message with an Adaptive Card attachment. */
  teams: Record<string, unknown>;
  email: EmailContent;
  /** The Standard Webhooks body (`type`, `timestamp`, `data`) and its type. */
  webhook: { type: string; body: string };
}
