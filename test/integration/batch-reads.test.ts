/** Reads by key against DynamoDB Local (lib/data/batch.ts): past BatchGetItem's 100 keys, in the keys' order. */
import { describe, expect, it } from 'vitest';
import { newSubscriptionId } from '../../lib/core/ids.js';
import { batchGetConsistent, batchWriteAll, putRequest } from '../../lib/data/batch.js';

describe('batchGetConsistent', () => {
  it('reads 150 keys (two requests) in the order given, a repeated key twice, a missing one as undefined', async () => {
    const pk = `BATCH#${newSubscriptionId()}`;
    const keys = Array.from({ length: 150 }, (_, i) => ({ pk, sk: String(i).padStart(3, '0') }));
    await batchWriteAll(keys.map((key, i) => putRequest({ ...key, n: i })));
    const asked = [...keys].reverse();
    const read = await batchGetConsistent([...asked, keys[7]!, { pk, sk: 'missing' }]);
    expect(read).toHaveLength(152);
    expect(read.slice(0, 150).map((item) => item?.n)).toEqual(asked.map((key) => Number(key.sk)));
    expect(read[150]?.n).toBe(7);
    expect(read[151]).toBeUndefined();
  });
});
