import type { ResponseOf } from '../../api/client';
import { momentWords } from '../../api/dates';

/** A webhook endpoint as GET /webhook-endpoints lists it. */
export type Endpoint = ResponseOf<'/webhook-endpoints', 'get'>[number];

/** A delivery or rotation time with its zone, or a dash when there is none. */
export const when = (iso: string | null) => (iso ? momentWords(iso) : '—');
