/** n / of rounded to 4 decimals; 0 when `of` is 0 (a rate of nothing sent is 0, not NaN). */
export const rate = (n: number, of: number): number => (of > 0 ? Math.round((n / of) * 10_000) / 10_000 : 0);
