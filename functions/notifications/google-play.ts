import type { NotificationDeclaration } from '../../lib/http/declaration.js';
import { notificationEndpoint } from '../../lib/http/endpoint.js';
import { receiveGooglePlayNotification } from '../../lib/services/store-notifications.js';

/** POST /notifications/google-play/{app_id}: Real-Time Developer Notifications, a Pub/Sub push. */
export const endpoint = { documentedBody: 'PubSubPush' } satisfies NotificationDeclaration;

export const handler = notificationEndpoint(({ appId, body, headers }) =>
  receiveGooglePlayNotification(appId, body, headers.authorization),
);
