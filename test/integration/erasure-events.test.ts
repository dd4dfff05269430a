/**
 * The events that name a user, against DynamoDB Local: the deliverer records which users each
 * event names before its delivery record, the erasure deletes each one's outbox item and delivery
 * record, and an event of an erased user the erasure could not find is not redelivered.
 */
import { DeleteCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { AppError } from '../../lib/core/errors.js';
import { newEventId } from '../../lib/core/ids.js';
import { getConsistent } from '../../lib/data/batch.js';
import { ddb, tableName } from '../../lib/data/client.js';
import * as keys from '../../lib/data/entity-keys.js';
import { type TableKey, userEventKey } from '../../lib/data/table-keys.js';
import { createDelivery, getDelivery } from '../../lib/data/webhooks.js';
import type { BusEventDetail } from '../../lib/events/schemas.js';
import { eraseCustomer } from '../../lib/services/erasure.js';
import { deliverStatusChange, redeliver } from '../../lib/services/webhook-delivery.js';
import { createTestApp } from '../support/fixtures.js';
import { admin } from '../support/processes.js';
import { seedSubscription } from '../support/subscriptions.js';

const statusChangeOf = (appId: string, subscriptionId: string, userId: string): BusEventDetail => ({
  app_id: appId,
  event_id: newEventId(),
  payload: {
    event: 'subscription.status_changed',
    timestamp: new Date().toISOString(),
    data: {
      subscription_id: subscriptionId,
      user_id: userId,
      old_status: 'pending_verification',
      new_status: 'active',
      expires_at: new Date(Date.now() + 86_400_000).toISOString(),
      auto_renew: true,
    },
  },
});

const transferOf = (appId: string, from: string, to: string): BusEventDetail => ({
  app_id: appId,
  event_id: newEventId(),
  payload: {
    event: 'subscription.transferred',
    timestamp: new Date().toISOString(),
    data: {
      original_transaction_id: 'otx-1',
      product_id: 'premium_monthly',
      from_user_id: from,
      to_user_id: to,
      from_subscription_id: 'sub_from',
      to_subscription_id: 'sub_to',
    },
  },
});

describe("the events naming a user: found, deleted with the user's data, never redelivered", () => {
  it('the deliverer records every user an event names; the erasure deletes its outbox item, delivery and pointer', async () => {
    const { appId } = await createTestApp([]);
    const subscription = await seedSubscription(appId, { user_id: 'leaving' });
    const status = statusChangeOf(appId, subscription.id, 'leaving');
    const transfer = transferOf(appId, 'leaving', 'staying');
    // The transfer's outbox item, as its transaction wrote it.
    await ddb.send(
      new PutCommand({
        TableName: tableName,
        Item: { ...keys.outbox(transfer.event_id), type: 'outbox', ...transfer },
      }),
    );
    for (const detail of [status, transfer]) await deliverStatusChange(detail);
    for (const [user, event] of [
      ['leaving', status],
      ['leaving', transfer],
      ['staying', transfer],
    ] as const)
      expect(await getConsistent(userEventKey(appId, user, event.event_id))).toMatchObject({
        event_id: event.event_id,
      });

    const result = await eraseCustomer(appId, 'leaving');
    expect(result).toMatchObject({ status: 'erased', removed: { webhook_events: 2, subscriptions_detached: 1 } });
    for (const event of [status, transfer]) {
      expect(await getDelivery(event.event_id)).toBeUndefined();
      expect(await getConsistent(keys.outbox(event.event_id))).toBeUndefined();
      expect(await getConsistent(userEventKey(appId, 'leaving', event.event_id))).toBeUndefined();
      // Nothing is left to send again.
      expect(await redeliver(event.event_id)).toBeUndefined();
    }
    // The other user's pointer stays theirs: their own erasure finds the (deleted) event by it.
    expect(await getConsistent(userEventKey(appId, 'staying', transfer.event_id))).toBeDefined();
  });

  it('an event of an erased user that the erasure did not find (recorded before pointers) is refused, not sent again', async () => {
    const { appId } = await createTestApp([]);
    const subscription = await seedSubscription(appId, { user_id: 'leaving' });
    const status = statusChangeOf(appId, subscription.id, 'leaving');
    // Its delivery record, written without a pointer, as the deliverer did before.
    await createDelivery(status, new Date());
    await eraseCustomer(appId, 'leaving');
    const before = await getDelivery(status.event_id);
    const refused = await redeliver(status.event_id).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(AppError);
    expect((refused as AppError).kind).toBe('EVENT_OF_ERASED_USER');
    expect(await getDelivery(status.event_id)).toEqual(before);
    // The operator's command, as a process: refused with the same code, nothing sent.
    const cli = await admin('webhooks', 'redeliver', '--event', status.event_id, '--json');
    expect({ code: cli.code, error: JSON.parse(cli.stdout).error.code }).toEqual({
      code: 1,
      error: 'EVENT_OF_ERASED_USER',
    });
    expect(await getDelivery(status.event_id)).toEqual(before);
  });

  it('an event that names an anonymous id only (a write after the erasure) records no pointer', async () => {
    const { appId } = await createTestApp([]);
    const anonymous = 'erased_0123456789abcdef01234567';
    const status = statusChangeOf(appId, 'sub_x', anonymous);
    const transfer = transferOf(appId, anonymous, 'staying');
    for (const detail of [status, transfer]) await deliverStatusChange(detail);
    expect(await getConsistent(userEventKey(appId, anonymous, status.event_id))).toBeUndefined();
    expect(await getConsistent(userEventKey(appId, anonymous, transfer.event_id))).toBeUndefined();
    expect(await getConsistent(userEventKey(appId, 'staying', transfer.event_id))).toBeDefined();
  });

  it('a pointer outlives the delivery it leads to, and a redelivery writes it again', async () => {
    const { appId } = await createTestApp([]);
    const subscription = await seedSubscription(appId, { user_id: 'kept' });
    const status = statusChangeOf(appId, subscription.id, 'kept');
    await deliverStatusChange(status);
    const ttlOf = async (key: TableKey) => (await getConsistent(key))?.ttl as number;
    const deliveryTtl = await ttlOf(keys.delivery(status.event_id));
    expect(deliveryTtl).toBeGreaterThan(Date.now() / 1000);
    expect(await ttlOf(userEventKey(appId, 'kept', status.event_id))).toBeGreaterThanOrEqual(deliveryTtl);

    await ddb.send(new DeleteCommand({ TableName: tableName, Key: userEventKey(appId, 'kept', status.event_id) }));
    await redeliver(status.event_id);
    const redeliveredTtl = await ttlOf(keys.delivery(status.event_id));
    expect(await ttlOf(userEventKey(appId, 'kept', status.event_id))).toBeGreaterThanOrEqual(redeliveredTtl);
  });

  it("another user's event is redelivered as before", async () => {
    const { appId } = await createTestApp([]);
    const subscription = await seedSubscription(appId, { user_id: 'staying' });
    const status = statusChangeOf(appId, subscription.id, 'staying');
    await createDelivery(status, new Date());
    await eraseCustomer(appId, 'leaving');
    expect(await redeliver(status.event_id)).toMatchObject({ event_id: status.event_id, status: 'no_endpoint' });
  });
});
