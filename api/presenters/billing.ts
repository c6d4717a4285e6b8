import type { z } from 'zod';
import type { InvoiceOut } from '../schemas/billing';
import type { Invoice } from '../../db/billing';
import { iso } from '../../lib/time';

/** Response shapes of the billing routes, typed by their `*Out` schemas (api/schemas). */

export const presentInvoice = (i: Invoice): z.input<typeof InvoiceOut> => ({
  ...i,
  periodStart: iso(i.periodStart),
  periodEnd: iso(i.periodEnd),
  createdAt: iso(i.createdAt)!,
});

export const presentPeriod = (p: { start: Date; end: Date }) => ({ start: iso(p.start)!, end: iso(p.end)! });
