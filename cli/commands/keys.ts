/** Issuing, rotating, revoking and listing an app's API keys. */

import type { ApiKeyKind } from '../../lib/core/ids.js';
import { issueKey, listAppKeys, revokeKey, revokeKeyById, rotateKey } from '../../lib/data/api-keys.js';
import { DEFAULT_RATE_LIMIT_TIER, RATE_LIMIT_TIERS } from '../../lib/domain/rate-limit.js';
import { CliError, type CommandTable } from '../command.js';
import { describeTier, requireApp, required, tierOf } from '../options.js';

/** `--kind`: which of an app's two kinds of key. */
function kindOf(values: Record<string, unknown>): ApiKeyKind {
  const kind = required(values, 'kind');
  if (kind !== 'secret' && kind !== 'sdk') throw new CliError('--kind must be secret or sdk');
  return kind;
}

export const keyCommands: CommandTable = {
  'keys create': {
    usage: `keys create --app A --kind secret|sdk [--tier ${RATE_LIMIT_TIERS.join('|')}]`,
    options: { app: { type: 'string' }, kind: { type: 'string' }, tier: { type: 'string' } },
    async run(values) {
      const appId = await requireApp(values);
      const kind = kindOf(values);
      const issued = await issueKey(appId, kind, tierOf(values));
      return {
        json: { app_id: appId, kind, key: issued.key, key_id: issued.key_id, tier: issued.tier },
        text: [
          `New ${kind} key for ${appId}: ${issued.key}`,
          `(key id ${issued.key_id}, ${describeTier(issued.tier)}; shown only now)`,
        ].join('\n'),
      };
    },
  },
  'keys rotate': {
    usage: `keys rotate --app A --kind secret|sdk [--keep-old] [--tier ${RATE_LIMIT_TIERS.join('|')}]`,
    options: {
      app: { type: 'string' },
      kind: { type: 'string' },
      'keep-old': { type: 'boolean', default: false },
      tier: { type: 'string' },
    },
    async run(values) {
      const appId = await requireApp(values);
      const kind = kindOf(values);
      const { issued, revoked } = await rotateKey(appId, kind, values['keep-old'] === true, tierOf(values));
      return {
        json: {
          app_id: appId,
          kind,
          key: issued.key,
          key_id: issued.key_id,
          tier: issued.tier,
          revoked_key_ids: revoked,
        },
        text: [
          `New ${kind} key for ${appId}: ${issued.key}`,
          `(key id ${issued.key_id}, ${describeTier(issued.tier)}; shown only now)`,
          revoked.length > 0 ? `Revoked: ${revoked.join(', ')}` : 'No key was revoked.',
        ].join('\n'),
      };
    },
  },
  'keys revoke': {
    usage: 'keys revoke --key K   |   keys revoke --app A --key-id ID',
    options: { key: { type: 'string' }, app: { type: 'string' }, 'key-id': { type: 'string' } },
    async run(values) {
      const byId = typeof values['key-id'] === 'string';
      const record = byId
        ? await revokeKeyById(await requireApp(values), required(values, 'key-id'))
        : await revokeKey(required(values, 'key'));
      if (!record) throw new CliError('no such key', 'NOT_FOUND');
      return {
        json: {
          app_id: record.app_id,
          key_id: record.key_id,
          kind: record.kind,
          status: record.status,
          revoked_at: record.revoked_at,
        },
        text: `Revoked ${record.kind} key ${record.key_id} of ${record.app_id}.`,
      };
    },
  },
  'keys list': {
    usage: 'keys list --app A',
    options: { app: { type: 'string' } },
    async run(values) {
      const appId = await requireApp(values);
      const listed = (await listAppKeys(appId)).map(({ key_id, kind, status, tier, created_at, revoked_at }) => ({
        key_id,
        kind,
        status,
        tier: tier ?? DEFAULT_RATE_LIMIT_TIER,
        created_at,
        revoked_at,
      }));
      return {
        json: { app_id: appId, keys: listed },
        text: listed
          .map(
            (k) =>
              `${k.key_id}  ${k.kind.padEnd(6)}  ${k.status.padEnd(7)}  ${k.tier.padEnd(8)}  created ${k.created_at}${k.revoked_at ? `  revoked ${k.revoked_at}` : ''}`,
          )
          .join('\n'),
      };
    },
  },
};
