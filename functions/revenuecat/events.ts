import type { RevenueCatDeclaration } from '../../lib/http/declaration.js';
import { revenuecatEndpoint } from '../../lib/http/endpoint.js';

/**
 * POST /v1/events and POST /v1/diagnostics: what the SDKs only report (paywall and feature events,
 * diagnostics), sent here when the proxy URL is set (purchases-ios HTTPRequestPath.swift:139-151).
 * Accepted and not kept: `{}`, so the SDK neither retries nor logs a failure. About no user
 * (counted by the request's address).
 */
export const endpoint = {} satisfies RevenueCatDeclaration;

export const handler = revenuecatEndpoint(endpoint, async () => ({ body: {} }));
