/**
 * The local stand-in for the stack's EventBridge bus and its rule: every event (each kind the rule matches) is
 * handed to the rule's target, the webhook deliverer handler, wrapped as EventBridge would wrap it
 * and given the time its function has in the stack.
 */

import { randomUUID } from 'node:crypto';
import type { EventBridgeEvent } from 'aws-lambda';
import { handler as deliverWebhook } from '../functions/events/deliver-webhook.js';
import { redactText } from '../lib/core/redact.js';
import { WEBHOOK_DELIVERER_TIMEOUT_SECONDS } from '../lib/domain/webhook-retry.js';
import type { BusDispatcher } from '../lib/events/bus.js';
import { type BusEventDetail, EVENT_SOURCE, type EventKind } from '../lib/events/schemas.js';
import { lambdaContext } from './lambda-context.js';

export const dispatchToRuleTargets: BusDispatcher = async (events) => {
  const failed: number[] = [];
  await Promise.all(
    events.map(async (detail, index) => {
      const event: EventBridgeEvent<EventKind, BusEventDetail> = {
        version: '0',
        id: randomUUID(),
        'detail-type': detail.payload.event,
        source: EVENT_SOURCE,
        account: '000000000000',
        time: detail.payload.timestamp,
        region: 'local',
        resources: [],
        detail,
      };
      try {
        await deliverWebhook(
          event,
          lambdaContext('DeliverWebhook', event.id, WEBHOOK_DELIVERER_TIMEOUT_SECONDS * 1000),
        );
      } catch (error) {
        // EventBridge would retry the target; here the poller keeps the record and retries it.
        console.error(
          JSON.stringify({
            level: 'ERROR',
            message: 'local bus: webhook deliverer failed',
            event_id: detail.event_id,
            error: redactText(String(error)),
          }),
        );
        failed.push(index);
      }
    }),
  );
  return failed.sort((a, b) => a - b);
};
