import { describe, expect, it } from 'vitest';
import {
  type DeveloperNotification,
  parsePubSubPush,
  subscriptionNotificationType,
} from '../../lib/stores/google-play-notifications.js';
import { appErrorThrownBy } from '../support/assertions.js';

const TOKEN = 'token-0123456789.abc:def_ghi-jkl';
const base64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64');
const developer = (extra: Record<string, unknown> = {}) => ({
  version: '1.0',
  packageName: 'com.example.subs',
  eventTimeMillis: '1764000000000',
  ...extra,
});
/** A push as Pub/Sub sends it, with `message` fields replaced or (undefined) removed. */
const push = (message: Record<string, unknown> = {}, data: unknown = developer()) => ({
  message: {
    data: base64(data),
    messageId: '136969346945',
    publishTime: '2026-11-27T10:00:00.123Z',
    ...message,
  },
  subscription: 'projects/p/subscriptions/rtdn-push',
});
const refusal = (body: unknown) => {
  const error = appErrorThrownBy(() => parsePubSubPush(body));
  return { kind: error.kind, message: error.message };
};

describe("Google's subscription notification types (developer.android.com, RTDN reference)", () => {
  it.each([
    [1, 'SUBSCRIPTION_RECOVERED'],
    [2, 'SUBSCRIPTION_RENEWED'],
    [3, 'SUBSCRIPTION_CANCELED'],
    [4, 'SUBSCRIPTION_PURCHASED'],
    [5, 'SUBSCRIPTION_ON_HOLD'],
    [6, 'SUBSCRIPTION_IN_GRACE_PERIOD'],
    [7, 'SUBSCRIPTION_RESTARTED'],
    [8, 'SUBSCRIPTION_PRICE_CHANGE_CONFIRMED'],
    [9, 'SUBSCRIPTION_DEFERRED'],
    [10, 'SUBSCRIPTION_PAUSED'],
    [11, 'SUBSCRIPTION_PAUSE_SCHEDULE_CHANGED'],
    [12, 'SUBSCRIPTION_REVOKED'],
    [13, 'SUBSCRIPTION_EXPIRED'],
    [17, 'SUBSCRIPTION_ITEMS_CHANGED'],
    [18, 'SUBSCRIPTION_CANCELLATION_SCHEDULED'],
    [19, 'SUBSCRIPTION_PRICE_CHANGE_UPDATED'],
    [20, 'SUBSCRIPTION_PENDING_PURCHASE_CANCELED'],
    [22, 'SUBSCRIPTION_PRICE_STEP_UP_CONSENT_UPDATED'],
    // Codes Google does not document (or not yet) keep their number.
    [0, 'SUBSCRIPTION_0'],
    [14, 'SUBSCRIPTION_14'],
    [15, 'SUBSCRIPTION_15'],
    [16, 'SUBSCRIPTION_16'],
    [21, 'SUBSCRIPTION_21'],
    [23, 'SUBSCRIPTION_23'],
  ])('code %i is %s', (code, type) => {
    expect(subscriptionNotificationType(code)).toBe(type);
  });
});

describe('a Pub/Sub push body', () => {
  it('is read whole: ids, publish time, subscription, attributes and the DeveloperNotification', () => {
    const body = push(
      { attributes: { origin: 'play' } },
      developer({
        subscriptionNotification: {
          version: '1.0',
          notificationType: 2,
          purchaseToken: TOKEN,
          subscriptionId: 'monthly',
        },
      }),
    );
    expect(parsePubSubPush(body)).toStrictEqual({
      messageId: '136969346945',
      publishTime: '2026-11-27T10:00:00.123Z',
      subscription: 'projects/p/subscriptions/rtdn-push',
      attributes: { origin: 'play' },
      notification: {
        version: '1.0',
        packageName: 'com.example.subs',
        eventTimeMillis: '1764000000000',
        subscriptionNotification: {
          version: '1.0',
          notificationType: 2,
          purchaseToken: TOKEN,
          subscriptionId: 'monthly',
        },
      },
    });
    // The same push as the text of the body.
    expect(parsePubSubPush(JSON.stringify(body))).toStrictEqual(parsePubSubPush(body));
  });

  it('takes the snake_case spellings of the ids, and normalises the publish time', () => {
    const parsed = parsePubSubPush({
      message: {
        data: base64(developer({ testNotification: { version: '1.0' } })),
        message_id: 'm-1',
        publish_time: '2026-11-27T10:00:00+01:00',
      },
    });
    expect(parsed).toStrictEqual({
      messageId: 'm-1',
      publishTime: '2026-11-27T09:00:00.000Z',
      subscription: null,
      attributes: {},
      notification: {
        version: '1.0',
        packageName: 'com.example.subs',
        eventTimeMillis: '1764000000000',
        testNotification: { version: '1.0' },
      },
    });
  });

  it('prefers messageId and publishTime to their snake_case spellings', () => {
    const parsed = parsePubSubPush(push({ message_id: 'other', publish_time: '2020-01-01T00:00:00Z' }));
    expect([parsed.messageId, parsed.publishTime]).toEqual(['136969346945', '2026-11-27T10:00:00.123Z']);
  });

  it.each<[string, Record<string, unknown>, DeveloperNotification[keyof DeveloperNotification]]>([
    [
      'a subscription notification without subscriptionId (Google leaves it out for new-style purchases)',
      { subscriptionNotification: { version: '1.0', notificationType: 4, purchaseToken: TOKEN } },
      { version: '1.0', notificationType: 4, purchaseToken: TOKEN },
    ],
    [
      'a voided purchase with a refund type',
      { voidedPurchaseNotification: { purchaseToken: TOKEN, orderId: 'GPA.1', productType: 1, refundType: 2 } },
      { purchaseToken: TOKEN, orderId: 'GPA.1', productType: 1, refundType: 2 },
    ],
    [
      'a voided purchase without one',
      { voidedPurchaseNotification: { purchaseToken: TOKEN, orderId: 'GPA.1', productType: 2 } },
      { purchaseToken: TOKEN, orderId: 'GPA.1', productType: 2 },
    ],
    [
      'a one-time product notification',
      { oneTimeProductNotification: { version: '1.0', notificationType: 1, purchaseToken: TOKEN, sku: 'coins' } },
      { version: '1.0', notificationType: 1, purchaseToken: TOKEN, sku: 'coins' },
    ],
  ])('reads %s', (_, part, expected) => {
    const [name] = Object.keys(part) as (keyof DeveloperNotification)[];
    expect(parsePubSubPush(push({}, developer(part))).notification[name!]).toStrictEqual(expected);
  });

  it.each<[string, unknown, string]>([
    ['text that is not JSON', '{"message":', 'the body is not JSON'],
    ['an array', [push()], 'the body is not a Pub/Sub push (a JSON object with a message)'],
    ['nothing', null, 'the body is not a Pub/Sub push (a JSON object with a message)'],
    ['no message', { subscription: 's' }, 'body.message is not an object'],
    ['no message id', push({ messageId: undefined }), 'message.messageId is missing'],
    ['an empty message id', push({ messageId: '' }), 'message.messageId is not a string of 1 to 2000 characters'],
    ['a message id of 257 characters', push({ messageId: 'm'.repeat(257) }), 'message.messageId is missing'],
    [
      'an empty snake_case message id',
      push({ messageId: undefined, message_id: '' }),
      'message.message_id is not a string of 1 to 2000 characters',
    ],
    ['no publish time', push({ publishTime: undefined }), 'message.publishTime is not a time'],
    ['a publish time that is no time', push({ publishTime: 'yesterday' }), 'message.publishTime is not a time'],
    [
      'a publish time that is no string',
      push({ publishTime: 7 }),
      'message.publishTime is not a string of 1 to 2000 characters',
    ],
    [
      'a bad snake_case publish time',
      push({ publishTime: undefined, publish_time: 7 }),
      'message.publish_time is not a string of 1 to 2000 characters',
    ],
    ['attributes that are a list', push({ attributes: ['a'] }), 'message.attributes is not an object'],
    [
      'an attribute that is a number',
      push({ attributes: { retries: 3 } }),
      'message.attributes.retries is not a string',
    ],
    ['no data', push({ data: undefined }), 'message.data is not a string of 1 to 65536 characters'],
    ['data with a character base64 has not', push({ data: `${base64(developer())}!` }), 'message.data is not base64'],
    ['data after a character base64 has not', push({ data: `!${base64(developer())}` }), 'message.data is not base64'],
    ['base64 of a length no encoder writes', push({ data: 'eyJ9' + 'e' }), 'message.data is not base64'],
    ['padding inside the data', push({ data: 'ab==abcd' }), 'message.data is not base64'],
    [
      'base64 of text that is not JSON',
      push({ data: Buffer.from('not json').toString('base64') }),
      'message.data is not base64 of JSON',
    ],
    ['base64 of a JSON list', push({}, [developer()]), 'message.data is not a DeveloperNotification (a JSON object)'],
    [
      'no eventTimeMillis',
      push({}, developer({ eventTimeMillis: undefined })),
      'message.data.eventTimeMillis is not a string of 1 to 20 characters',
    ],
    [
      'eventTimeMillis as a number',
      push({}, developer({ eventTimeMillis: 1764000000000 })),
      'message.data.eventTimeMillis is not a string of 1 to 20 characters',
    ],
    [
      'eventTimeMillis with a letter before',
      push({}, developer({ eventTimeMillis: 'x1764000000000' })),
      'message.data.eventTimeMillis is not milliseconds',
    ],
    [
      'eventTimeMillis with a letter after',
      push({}, developer({ eventTimeMillis: '1764000000000x' })),
      'message.data.eventTimeMillis is not milliseconds',
    ],
    [
      'eventTimeMillis of 17 digits',
      push({}, developer({ eventTimeMillis: '1'.repeat(17) })),
      'message.data.eventTimeMillis is not milliseconds',
    ],
    [
      'a version of 21 characters',
      push({}, developer({ version: '1'.repeat(21) })),
      'message.data.version is not a string of 1 to 20 characters',
    ],
    [
      'no package name',
      push({}, developer({ packageName: undefined })),
      'message.data.packageName is not a string of 1 to 255 characters',
    ],
    [
      'a package name of 256 characters',
      push({}, developer({ packageName: 'p'.repeat(256) })),
      'message.data.packageName is not a string of 1 to 255 characters',
    ],
    [
      'a subscription notification that is a string',
      push({}, developer({ subscriptionNotification: 'x' })),
      'message.data.subscriptionNotification is not an object',
    ],
    [
      'a notification type that is not an integer',
      push(
        {},
        developer({ subscriptionNotification: { version: '1.0', notificationType: 2.5, purchaseToken: TOKEN } }),
      ),
      'message.data.subscriptionNotification.notificationType is not an integer',
    ],
    [
      'a notification type given as text',
      push(
        {},
        developer({ subscriptionNotification: { version: '1.0', notificationType: '2', purchaseToken: TOKEN } }),
      ),
      'message.data.subscriptionNotification.notificationType is not an integer',
    ],
    [
      'a purchase token that is no token',
      push(
        {},
        developer({ subscriptionNotification: { version: '1.0', notificationType: 2, purchaseToken: 'short' } }),
      ),
      'message.data.subscriptionNotification.purchaseToken is not a Google Play purchase token',
    ],
    [
      'an empty subscriptionId',
      push(
        {},
        developer({
          subscriptionNotification: { version: '1.0', notificationType: 2, purchaseToken: TOKEN, subscriptionId: '' },
        }),
      ),
      'message.data.subscriptionNotification.subscriptionId is not a string of 1 to 2000 characters',
    ],
    [
      'a voided purchase without an order id',
      push({}, developer({ voidedPurchaseNotification: { purchaseToken: TOKEN, productType: 1 } })),
      'message.data.voidedPurchaseNotification.orderId is not a string of 1 to 256 characters',
    ],
    [
      'a refund type given as text',
      push(
        {},
        developer({
          voidedPurchaseNotification: { purchaseToken: TOKEN, orderId: 'GPA.1', productType: 1, refundType: 'full' },
        }),
      ),
      'message.data.voidedPurchaseNotification.refundType is not an integer',
    ],
    [
      'a one-time product notification without a sku',
      push(
        {},
        developer({ oneTimeProductNotification: { version: '1.0', notificationType: 1, purchaseToken: TOKEN } }),
      ),
      'message.data.oneTimeProductNotification.sku is not a string of 1 to 256 characters',
    ],
    [
      'a test notification without a version',
      push({}, developer({ testNotification: {} })),
      'message.data.version is not a string of 1 to 2000 characters',
    ],
  ])('refuses %s: INVALID_NOTIFICATION', (_, body, message) => {
    expect(refusal(body)).toEqual({ kind: 'INVALID_NOTIFICATION', message });
  });

  it('takes a message id of 256 characters and a version of 20', () => {
    const parsed = parsePubSubPush(push({ messageId: 'm'.repeat(256) }, developer({ version: '1'.repeat(20) })));
    expect([parsed.messageId.length, parsed.notification.version.length]).toEqual([256, 20]);
  });

  it('takes 16 digits of eventTimeMillis and a package name of 255 characters', () => {
    const parsed = parsePubSubPush(
      push({}, developer({ eventTimeMillis: '9'.repeat(16), packageName: 'p'.repeat(255) })),
    );
    expect([parsed.notification.eventTimeMillis, parsed.notification.packageName.length]).toEqual([
      '9'.repeat(16),
      255,
    ]);
  });

  it('is at most 64 KB: a body of 65,536 bytes is read, one more byte is too large', () => {
    const unpadded = JSON.stringify(push({ attributes: { pad: '' } }));
    const sized = (bytes: number) => unpadded.replace('"pad":""', `"pad":"${'x'.repeat(bytes - unpadded.length)}"`);
    expect(Buffer.byteLength(sized(65_536))).toBe(65_536);
    expect(parsePubSubPush(sized(65_536)).attributes.pad).toHaveLength(65_536 - unpadded.length);
    expect(refusal(sized(65_537))).toEqual({
      kind: 'PAYLOAD_TOO_LARGE',
      message: 'a Pub/Sub push is at most 65536 bytes',
    });
  });
});
