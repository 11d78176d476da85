/**
 * Sign-in attempts per client address and per email: at most `perEmail` attempts for one email
 * from one address and `perAddress` from one address in `windowMs`, so guessing a password is
 * slow, whichever email is tried. Counted in this process: each gateway limits on its own.
 */
export class SignInLimiter {
  private readonly attempts = new Map<string, number[]>();

  constructor(
    private readonly limits = { perEmail: 5, perAddress: 20, windowMs: 5 * 60_000 },
    private readonly now: () => number = Date.now,
  ) {}

  /** Counts an attempt; false when it is over a limit (and then it is not made). */
  attempt(address: string, email: string): boolean {
    const since = this.now() - this.limits.windowMs;
    const keys: Array<[string, number]> = [
      [`a ${address}`, this.limits.perAddress],
      [`e ${address} ${email.toLowerCase()}`, this.limits.perEmail],
    ];
    const recent = keys.map(([key]) => (this.attempts.get(key) ?? []).filter((at) => at > since));
    if (recent.some((times, i) => times.length >= keys[i][1])) return false;
    keys.forEach(([key], i) => this.attempts.set(key, [...recent[i], this.now()]));
    if (this.attempts.size > 100_000) this.forgetOlderThan(since);
    return true;
  }

  private forgetOlderThan(since: number): void {
    for (const [key, times] of this.attempts) if (times.every((at) => at <= since)) this.attempts.delete(key);
  }
}
