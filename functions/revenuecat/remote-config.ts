import type { RevenueCatDeclaration } from '../../lib/http/declaration.js';
import { revenuecatEndpoint } from '../../lib/http/endpoint.js';
import { revenuecatConfigParams } from '../../lib/schemas/revenuecat.js';

/**
 * POST /v1/config/{domain}: the SDKs' remote configuration, asked at every start. This service
 * keeps none of RevenueCat's, so the answer is 204, which the SDKs read as "what you hold is
 * current" (purchases-ios RemoteConfigManager.swift); a 200 with JSON would be refetched at every
 * foreground. The body is not read.
 */
export const endpoint = {
  params: revenuecatConfigParams,
  statuses: [204],
} satisfies RevenueCatDeclaration;

export const handler = revenuecatEndpoint(endpoint, async () => ({ status: 204 }));
