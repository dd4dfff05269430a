import type { SubscriptionsDeclaration } from '../../lib/http/declaration.js';
import { subscriptionsEndpoint } from '../../lib/http/endpoint.js';
import { listCustomersQuery } from '../../lib/schemas/customer-list.js';
import { listCustomers } from '../../lib/services/customer-search.js';

/** GET /v1/customers: the app's customers in user id order, those whose id starts with `prefix`. */
export const endpoint = {
  query: listCustomersQuery,
  response: 'CustomerList',
  pagination: 'CustomerPagination',
} satisfies SubscriptionsDeclaration;

export const handler = subscriptionsEndpoint(endpoint, async ({ caller, query }) => ({
  body: await listCustomers(caller.appId, query),
}));
