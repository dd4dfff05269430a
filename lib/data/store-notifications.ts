/**
 * Store notifications received: one item per notification id (Apple notificationUUID, Pub/Sub
 * messageId), written in the same transaction as what the notification changed, on condition that
 * it is new. A store's redelivery finds it and changes nothing. Kept for NOTIFICATION_RETENTION_DAYS.
 */
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import type { NotificationOutcome } from '../domain/notification-outcomes.js';
import type { StoreNotification } from '../domain/store-purchase.js';
import { ddb, isConditionFailure, type TransactItem, tableName } from './client.js';
import * as keys from './entity-keys.js';

/** Apple retries for three days, Pub/Sub for seven: a redelivery arrives well within this. */
export const NOTIFICATION_RETENTION_DAYS = 30;
/** The same, in ms: how long a notification's record answers its redeliveries. */
export const NOTIFICATION_RETENTION_MS = NOTIFICATION_RETENTION_DAYS * 86_400_000;

export type { NotificationOutcome } from '../domain/notification-outcomes.js';

export function notificationKey(appId: string, notification: Pick<StoreNotification, 'store' | 'notification_id'>) {
  return keys.storeNotification(appId, notification.store, notification.notification_id);
}

/** The notification's record, refused if one with its id exists (a redelivery). */
export function notificationRecordPut(
  appId: string,
  notification: StoreNotification,
  outcome: NotificationOutcome,
  now: Date,
): TransactItem {
  const state = notification.state;
  return {
    Put: {
      TableName: tableName,
      Item: {
        ...notificationKey(appId, notification),
        type: 'store_notification',
        app_id: appId,
        store: notification.store,
        notification_id: notification.notification_id,
        notification_type: notification.type,
        subtype: notification.subtype,
        environment: notification.environment,
        sent_at: notification.sent_at,
        received_at: now.toISOString(),
        original_transaction_id: state?.original_transaction_id ?? null,
        transaction_id: state?.transaction_id ?? null,
        outcome,
        ttl: Math.floor(now.getTime() / 1000) + NOTIFICATION_RETENTION_DAYS * 86_400,
      },
      ConditionExpression: 'attribute_not_exists(pk)',
    },
  };
}

/** Records a notification that changes nothing; false when it was recorded before (a redelivery). */
export async function recordNotification(
  appId: string,
  notification: StoreNotification,
  outcome: NotificationOutcome,
  now: Date,
): Promise<boolean> {
  try {
    await ddb.send(new PutCommand(notificationRecordPut(appId, notification, outcome, now).Put!));
    return true;
  } catch (error) {
    if (isConditionFailure(error)) return false;
    throw error;
  }
}
