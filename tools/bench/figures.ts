/** How every bench reads and prints its figures. */

/** The value below which p % of `sorted` lie (nearest rank); NaN when there is none. */
export const percentile = (sorted: ArrayLike<number>, p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
export const ms = (value: number) =>
  Number.isNaN(value) ? '-' : value < 10 ? value.toFixed(1) : String(Math.round(value));
/** The end of every `Aim:` line. */
export const met = (ok: boolean) => (ok ? 'met' : 'NOT met');
