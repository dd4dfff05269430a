import { revenuecatKeylessEndpoint } from '../../lib/http/endpoint.js';
import { revenuecatSubscriberParams } from '../../lib/schemas/revenuecat.js';

/**
 * GET /v1/subscribers/{app_user_id}/health_report_availability: a debug build of purchases-ios asks
 * it, without a key, at every start whether to log RevenueCat's check of the app's configuration
 * (Purchases.swift, HealthReportAvailabilityResponse.swift). That check is of RevenueCat's
 * dashboard, which this service has none of: `{"report_logs": false}`, and the SDK asks no more.
 */
export const endpoint = { params: revenuecatSubscriberParams };

export const handler = revenuecatKeylessEndpoint(endpoint, { report_logs: false });
