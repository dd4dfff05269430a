/**
 * Reading options: the values every group shares (a required value, an existing app, a rate-limit
 * tier) and the arguments as parseArgs is to read them.
 */
import { config } from '../lib/core/config.js';
import { getApp } from '../lib/data/apps.js';
import { isRateLimitTier, RATE_LIMIT_TIERS, type RateLimitTier } from '../lib/domain/rate-limit.js';
import { appIdSchema } from '../lib/schemas/common.js';
import { CliError, type Options } from './command.js';

export function required(values: Record<string, unknown>, name: string): string {
  const value = values[name];
  if (typeof value !== 'string' || value === '') throw new CliError(`--${name} is required`);
  return value;
}

/** `--app`: the id of an app that exists. */
export async function requireApp(values: Record<string, unknown>): Promise<string> {
  const appId = required(values, 'app');
  if (!appIdSchema.safeParse(appId).success)
    throw new CliError(`--app ${appId} is not an app id (app_ followed by 16 hex digits)`);
  if (!(await getApp(appId))) throw new CliError(`app ${appId} does not exist`, 'NOT_FOUND');
  return appId;
}

/** `--tier`, when given; the limits per tier come from the configuration (RATE_LIMIT_<TIER>_PER_MINUTE). */
export function tierOf(values: Record<string, unknown>): RateLimitTier | undefined {
  const tier = values.tier;
  if (tier === undefined) return undefined;
  if (!isRateLimitTier(tier)) throw new CliError(`--tier must be one of ${RATE_LIMIT_TIERS.join(', ')}`);
  return tier;
}

/** A tier as the commands that issue keys print it. */
export const describeTier = (tier: RateLimitTier) => `${tier} tier, ${config.rateLimits[tier]} requests/minute`;

/**
 * A negative number after an option that takes a value is that value (`--expires-in -60`), not
 * an option of its own: parseArgs would call it ambiguous, so it is joined as `--expires-in=-60`.
 */
export function withNegativeValues(args: readonly string[], options: Options): string[] {
  const joined: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const option = args[i]!.startsWith('--') ? options[args[i]!.slice(2)] : undefined;
    const next = args[i + 1];
    if (option?.type === 'string' && next !== undefined && /^-\d+(\.\d+)?$/.test(next)) {
      joined.push(`${args[i]}=${next}`);
      i++;
    } else {
      joined.push(args[i]!);
    }
  }
  return joined;
}
