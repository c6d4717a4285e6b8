import { hashPassword, hashSlots, HASH_CONCURRENCY, verifyPassword } from '../../lib/password';
import { Semaphore } from '../../lib/concurrency';

describe('password hashing', () => {
  it(`runs at most ${HASH_CONCURRENCY} scrypt hashes at once and queues the rest`, async () => {
    const hashes = Array.from({ length: 6 }, (_, i) => hashPassword(`password number ${i}`));
    expect(hashSlots.inFlight).toBe(HASH_CONCURRENCY);
    expect(hashSlots.queued).toBe(6 - HASH_CONCURRENCY);
    const stored = await Promise.all(hashes);
    expect(hashSlots.inFlight).toBe(0);
    expect(hashSlots.queued).toBe(0);
    const checks = stored.map((h, i) => verifyPassword(`password number ${i}`, h));
    expect(hashSlots.inFlight + hashSlots.queued).toBe(6);
    expect(await Promise.all(checks)).toEqual([true, true, true, true, true, true]);
    expect(await verifyPassword('wrong', stored[0])).toBe(false);
  });
});

describe('Semaphore', () => {
  it('hands slots over in arrival order and releases them when the holder fails', async () => {
    const s = new Semaphore(1);
    const order: string[] = [];
    let release!: () => void;
    const first = s.run(() => new Promise<void>((r) => (release = r)).then(() => order.push('first')));
    const failing = s.run(async () => {
      order.push('failing');
      throw new Error('boom');
    });
    const third = s.run(async () => order.push('third'));
    expect(s.inFlight).toBe(1);
    expect(s.queued).toBe(2);
    release();
    await first;
    await expect(failing).rejects.toThrow('boom');
    await third;
    expect(order).toEqual(['first', 'failing', 'third']);
    expect(s.inFlight).toBe(0);
    expect(s.queued).toBe(0);
  });
});
