import { solidShare } from '../../db/contactCounts';

/** When a block sample's share is solid enough to answer a count with (db/contactCounts.ts). */
describe('solidShare', () => {
  const even = { blocks: 100, seen: 10_000, hits: 1_000, hh: 100 * 10 * 10, hs: 100 * 10 * 100, ss: 100 * 100 * 100, fraction: 0.1 };
  it('takes a share with no spread between blocks, and refuses one whose matches sit in a tenth of the blocks', () => {
    expect(solidShare(even)).toBe(0.1);
    // Ten blocks of 100 matches each, ninety with none: same totals, all the spread.
    expect(solidShare({ ...even, hh: 10 * 100 * 100, hs: 10 * 100 * 100 })).toBeNull();
  });
  it('needs enough rows and matches, unless the sample read every block', () => {
    expect(solidShare({ ...even, seen: 900, ss: 8_100 })).toBeNull();
    expect(solidShare({ ...even, hits: 50, hh: 25, hs: 5_000 })).toBeNull();
    expect(solidShare({ ...even, hits: 50, hh: 25, hs: 5_000, fraction: 1 })).toBe(0.005);
    expect(solidShare({ ...even, hits: 0, hh: 0, hs: 0, fraction: 1 })).toBeNull();
  });
});
