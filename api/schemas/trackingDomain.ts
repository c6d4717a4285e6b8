import { z } from 'zod';
import { Timestamp } from './common';
import { DomainName } from './domains';

/** A project's own tracking domain (docs/tracking.md "Your own tracking domain"). */

export const TrackingDomainSet = z.strictObject({ domain: DomainName.describe('a name you control, such as track.example.com') });

const TrackingDomainRecordOut = z.object({
  type: z.enum(['CNAME', 'TXT']),
  name: z.string(),
  value: z.string(),
  purpose: z.enum(['tracking', 'ownership']).describe("tracking: the CNAME to the service's tracking host; ownership: the project's TXT token"),
  required: z.boolean(),
  valid: z.boolean().describe('found at the last check'),
});

export const TrackingDomainOut = z.object({
  domain: z.string(),
  status: z.enum(['PENDING', 'VERIFIED']).describe("VERIFIED once both records are found; sticky, like a sender domain's"),
  records: z.array(TrackingDomainRecordOut),
  trackingUrl: z.string().describe("the base the project's pixel and links use once the domain is verified: TRACKING_URL with this host"),
  lastCheckedAt: Timestamp.nullable(),
  verifiedAt: Timestamp.nullable(),
  createdAt: Timestamp,
});
