export function money(amount: number, currency: string): string {
  try {
    return new Intl.NumberFormat('en', { style: 'currency', currency }).format(amount);
  } catch {
    return `${amount.toFixed(2)} ${currency}`;
  }
}

export const count = (value: number): string => new Intl.NumberFormat('en').format(value);

export const percent = (ratio: number): string => `${(ratio * 100).toFixed(1)}%`;

/** "2026-11-27 08:16 UTC": operators compare times across tools, so the console shows UTC. */
export function when(iso: string | null | undefined): string {
  if (!iso) return '—';
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  return `${date.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

export const isoDate = (date: Date): string => date.toISOString().slice(0, 10);

export function daysAgo(days: number, from = new Date()): string {
  return isoDate(new Date(from.getTime() - days * 86_400_000));
}
