import { revenuecatKeylessEndpoint } from '../../lib/http/endpoint.js';

/**
 * GET /v1/health: the SDKs' check that the backend answers (purchases-ios HealthOperation.swift,
 * run by PurchasesDiagnostics), sent without a key: `200 {}` from the function, reading nothing.
 */
export const endpoint = {};

export const handler = revenuecatKeylessEndpoint(endpoint, {});
