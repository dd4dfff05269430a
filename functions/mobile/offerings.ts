import type { MobileDeclaration } from '../../lib/http/declaration.js';
import { mobileEndpoint } from '../../lib/http/endpoint.js';
import { offeringsForUser } from '../../lib/services/offerings.js';

/** GET /offerings (and /v2/...): what X-USER-ID is shown on X-PLATFORM, and the rule that chose it. */
export const endpoint = { response: 'CustomerOfferings' } satisfies MobileDeclaration;

export const handler = mobileEndpoint(endpoint, async ({ caller }) => ({
  message: 'Offerings of the user',
  data: await offeringsForUser(caller.appId, caller.userId, caller.platform),
}));
