/** Numbers an operator sets at deploy time with `-c name=value` (cdk.json or the command line). */
import type { Node } from 'constructs';

/** A whole number from `min` to `max`, or `fallback` when the context does not set it; anything else stops synthesis. */
export function wholeNumberContext(node: Node, name: string, fallback: number, [min, max]: readonly [number, number]) {
  const raw: unknown = node.tryGetContext(name);
  const value = Number(raw ?? fallback);
  if (!Number.isInteger(value) || value < min || value > max)
    throw new Error(`-c ${name} must be a whole number from ${min} to ${max}, got "${String(raw)}"`);
  return value;
}
