/** How many items have each key. */
export function count<T>(items: T[], key: (item: T) => string): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const item of items) counts[key(item)] = (counts[key(item)] ?? 0) + 1;
  return counts;
}

/** Counts for a report line, the most frequent first: "COMPLETED ×3, FAILED ×1". */
export const tally = (counts: Record<string, number>) =>
  Object.entries(counts)
    .sort(([, a], [, b]) => b - a)
    .map(([what, times]) => `${what} ×${times}`)
    .join(', ');
