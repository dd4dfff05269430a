import { notificationEndpoint } from '../../lib/http/endpoint.js';
import { receiveTestStoreNotification } from '../../lib/services/store-notifications.js';

/** POST /notifications/test-store/{app_id}: the test store's notifications (`admin notifications mint`). */
export const handler = notificationEndpoint(({ appId, body }) => receiveTestStoreNotification(appId, body));
