/** Small statistics for side-by-side measurements. */

export function median(values: readonly number[]): number {
  if (values.length === 0) throw new Error('median of nothing');
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

export const round = (value: number, digits = 1): number => Number(value.toFixed(digits));
