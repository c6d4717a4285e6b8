import { contactId, randomBase62 } from '../../lib/ids';
import { ContactIdParams } from '../../api/schemas/contacts';

describe('contactId', () => {
  it('is cnt_ + 22 characters the contact routes accept', () => {
    const id = contactId();
    expect(id).toMatch(/^cnt_[0-9a-z]{9}[0-9A-Za-z]{13}$/);
    expect(ContactIdParams.safeParse({ id }).success).toBe(true);
  });

  it('sorts by creation time, also across a change in the number of base36 digits', () => {
    const times = [0, 35, 36, 1_700_000_000_000, 1_700_000_000_001, 1_800_000_000_000, 36 ** 9 - 1];
    const ids = times.map((t) => contactId(t));
    expect([...ids].sort()).toEqual(ids);
    // Byte order and a language collation agree on the prefix (digits and lowercase letters only).
    expect([...ids].sort((a, b) => a.slice(0, 13).localeCompare(b.slice(0, 13), 'en'))).toEqual(ids);
  });

  it('differs within the same millisecond', () => {
    const ids = new Set(Array.from({ length: 1000 }, () => contactId(1_700_000_000_000)));
    expect(ids.size).toBe(1000);
  });
});

describe('randomBase62', () => {
  it('draws every character about equally often, across many refills of its random pool', () => {
    const counts = new Map<string, number>();
    const n = 20_000;
    for (let i = 0; i < n; i++) for (const ch of randomBase62(10)) counts.set(ch, (counts.get(ch) ?? 0) + 1);
    expect(counts.size).toBe(62);
    // 14 characters × 20,000 draws: about 4,516 each; a bias or a stuck pool shows far outside ±10 %.
    const expected = (14 * n) / 62;
    for (const c of counts.values()) expect(Math.abs(c - expected) / expected).toBeLessThan(0.1);
  });
});
