/**
 * Lambda event filtering (the subset our stream filters use), to check that a filter pattern
 * selects the records a predicate does: every key of the pattern must be in the record; an array
 * lists allowed values, each an exact value or `{ exists: boolean }` on a leaf.
 * https://docs.aws.amazon.com/lambda/latest/dg/invocation-eventfiltering.html
 */
type Pattern = { readonly [key: string]: Pattern | readonly unknown[] };

export function matchesFilter(pattern: Pattern, value: unknown): boolean {
  return Object.entries(pattern).every(([key, rule]) => {
    const field = (value as Record<string, unknown> | undefined)?.[key];
    if (!Array.isArray(rule)) return field !== undefined && matchesFilter(rule as Pattern, field);
    return rule.some((allowed: unknown) =>
      typeof allowed === 'object' && allowed !== null && 'exists' in allowed
        ? (field !== undefined && typeof field !== 'object') === (allowed as { exists: boolean }).exists
        : field === allowed,
    );
  });
}
