import { evenPace } from '../../services/sendThrottle';

describe("a campaign's even pace (sendRatePerMinute)", () => {
  it('spreads a minute over the seconds: groups of a fifth of a second, each slot after the last', () => {
    const clock = 0;
    const pace = evenPace(600, 1, () => clock);
    expect(pace.groupSize).toBe(2);
    // 600 a minute is one every 100 ms: groups of two 200 ms apart, not the minute's worth at once.
    expect([pace.reserve(2), pace.reserve(2), pace.reserve(2)]).toEqual([0, 200, 400]);
    expect(pace.untilFree()).toBe(600);
  });

  it('a late group starts from now and never catches up in a burst (GCRA)', () => {
    let clock = 0;
    const pace = evenPace(600, 1, () => clock);
    pace.reserve(2);
    clock = 5_000;
    expect(pace.reserve(2)).toBe(0);
    expect(pace.reserve(2)).toBe(200);
  });

  it('slow rates go one recipient at a time, and waits scale with WORKFLOW_TIME_SCALE', () => {
    const clock = 0;
    const pace = evenPace(2, 0.001, () => clock);
    expect(pace.groupSize).toBe(1);
    expect([pace.reserve(1), pace.reserve(1)]).toEqual([0, 30]);
  });
});
