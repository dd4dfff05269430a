import type { NotificationDeclaration } from '../../lib/http/declaration.js';
import { notificationEndpoint } from '../../lib/http/endpoint.js';
import { receiveAppStoreNotification } from '../../lib/services/store-notifications.js';

/** POST /notifications/app-store/{app_id}: App Store Server Notifications V2 (Production and Sandbox). */
export const endpoint = { documentedBody: 'SignedNotification' } satisfies NotificationDeclaration;

export const handler = notificationEndpoint(({ appId, body }) => receiveAppStoreNotification(appId, body));
