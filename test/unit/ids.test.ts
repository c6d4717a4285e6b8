import { contactId } from '../../lib/ids';
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
