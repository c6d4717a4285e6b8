/**
 * User agents of machines that fetch a message's images and links on their own (docs/tracking.md,
 * "Machines are not people"): security gateways that follow every link at delivery (Microsoft Safe
 * Links, Proofpoint, Mimecast, Barracuda, …), link previewers, and HTTP libraries. A hit from one
 * of them within a few seconds of the hand-over is recorded as a machine's. Image proxies that fetch
 * when the reader opens the message (Gmail's GoogleImageProxy, Yahoo's) are readers and are not
 * listed. No user agent at all: browsers and mail clients always send one.
 */
const MACHINE_AGENT =
  /bot\b|crawler|spider|preview|scanner|safelinks|proofpoint|mimecast|barracuda|ironport|fireeye|trendmicro|forcepoint|symantec|messagelabs|sophos|zscaler|appriver|checkpoint|cisco|fortiguard|bitdefender|kaspersky|slack|discord|whatsapp|telegram|skype|facebookexternalhit|linkexpander|curl\/|wget\/|python-requests|python-urllib|go-http-client|java\/|okhttp|axios\/|node-fetch|headlesschrome|phantomjs/i;

/** A known prefetcher or scanner (or no user agent at all). */
export function isMachineAgent(userAgent: string | undefined): boolean {
  const ua = userAgent?.trim() ?? '';
  return ua === '' || MACHINE_AGENT.test(ua);
}

/** Hits this many seconds or less after the hand-over from such an agent are a machine's. */
export const MACHINE_WINDOW_SECONDS = 10;
