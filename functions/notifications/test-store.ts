import type { NotificationDeclaration } from '../../lib/http/declaration.js';
import { notificationEndpoint } from '../../lib/http/endpoint.js';
import { receiveTestStoreNotification } from '../../lib/services/store-notifications.js';

/** POST /notifications/test-store/{app_id}: the test store's notifications (`admin notifications mint`). */
export const endpoint = { documentedBody: 'SignedNotification' } satisfies NotificationDeclaration;

export const handler = notificationEndpoint(({ appId, body }) => receiveTestStoreNotification(appId, body));
