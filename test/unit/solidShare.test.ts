import { largerSampleMayBeSolid, solidShare } from '../../db/contactCounts';

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

describe('largerSampleMayBeSolid', () => {
  const small = { blocks: 270, seen: 10_000, hits: 1_000, hh: 0, hs: 0, ss: 0, fraction: 0.01 };
  it('reads the larger sample when the smaller was too small to say, or close to solid', () => {
    expect(largerSampleMayBeSolid({ ...small, seen: 800 }, 10)).toBe(true);
    // 1,000 matches in 270 blocks of 37 rows, spread like independent rows: about 3 % error now, 1 % with ten times the rows.
    const binomial = 0.1 * 0.9 * 37 * 270; // Σ(h - R·s)² for binomial blocks
    expect(largerSampleMayBeSolid({ ...small, hh: binomial, hs: 0, ss: 0 }, 10)).toBe(true);
  });
  it('goes straight to the exact count for a match the larger sample could not pin down', () => {
    expect(largerSampleMayBeSolid({ ...small, hits: 0 }, 10)).toBe(false);
    expect(largerSampleMayBeSolid({ ...small, hits: 5 }, 10)).toBe(false);
    // All the matches in a tenth of the blocks: about 30 % error, still about 9 % with ten times the rows.
    expect(largerSampleMayBeSolid({ ...small, blocks: 100, hh: 10 * 100 * 100, hs: 10 * 100 * 100, ss: 100 * 100 * 100 }, 10)).toBe(false);
    expect(largerSampleMayBeSolid({ ...small, fraction: 1 }, 10)).toBe(false);
  });
});
