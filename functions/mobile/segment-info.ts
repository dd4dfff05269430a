import type { MobileDeclaration } from '../../lib/http/declaration.js';
import { mobileEndpoint } from '../../lib/http/endpoint.js';
import { segmentInfo } from '../../lib/services/audience.js';

/** GET /segment/info: built-in and rule segments of X-USER-ID (needs only X-API-KEY, X-USER-ID, X-APP-ID). */
export const endpoint = {
  headers: 'identity',
  response: 'SegmentInfo',
  errors: ['USER_NOT_FOUND'],
  dingyue: {},
} satisfies MobileDeclaration;

export const handler = mobileEndpoint(
  endpoint,
  async ({ caller }) => ({
    message: 'Segments of the user',
    data: await segmentInfo(caller.appId, caller.userId),
  }),
  async ({ caller }) => ({
    segmentList: (await segmentInfo(caller.appId, caller.userId)).segments.map((segment) => segment.id),
  }),
);
