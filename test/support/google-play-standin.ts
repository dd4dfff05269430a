/**
 * A local stand-in for Google's OAuth token endpoint and the Play Developer API, speaking their
 * wire formats: the JWT-bearer grant (the assertion's RS256 signature is checked against the
 * service account's public key), purchases.subscriptionsv2.get and subscriptions.acknowledge.
 */
import { generateKeyPairSync, randomBytes, verify } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface StandIn {
  url: string;
  tokenUrl: string;
  serviceAccount: { client_email: string; private_key: string; token_uri: string };
  /** SubscriptionPurchaseV2 bodies by purchase token. */
  purchases: Map<string, Record<string, unknown>>;
  acknowledged: string[];
  tokenRequests: number;
  /** Make the next request to a path containing this fragment answer with this status (or hang). */
  failNext(fragment: string, status: number | 'hang'): void;
  close(): Promise<void>;
}

export async function startGooglePlayStandIn(packageName: string, port = 0): Promise<StandIn> {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const issued = new Set<string>();
  const failures: { fragment: string; status: number | 'hang' }[] = [];
  const server: Server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => {
      const path = request.url ?? '';
      const send = (status: number, payload?: unknown) => {
        response
          .writeHead(status, { 'content-type': 'application/json' })
          .end(payload === undefined ? '' : JSON.stringify(payload));
      };
      const failure = failures.findIndex((f) => path.includes(f.fragment));
      if (failure >= 0) {
        const { status } = failures.splice(failure, 1)[0]!;
        if (status === 'hang') return; // never answers
        return send(status, { error: { code: status, message: 'stand-in failure' } });
      }
      if (request.method === 'POST' && path === '/token') {
        standIn.tokenRequests += 1;
        const form = new URLSearchParams(body);
        const assertion = form.get('assertion') ?? '';
        const [header, claims, signature] = assertion.split('.');
        const signed =
          header &&
          claims &&
          signature &&
          verify('sha256', Buffer.from(`${header}.${claims}`), publicKey, Buffer.from(signature, 'base64url'));
        const parsed = claims ? JSON.parse(Buffer.from(claims, 'base64url').toString()) : {};
        if (
          form.get('grant_type') !== 'urn:ietf:params:oauth:grant-type:jwt-bearer' ||
          !signed ||
          parsed.aud !== standIn.tokenUrl ||
          !String(parsed.scope).includes('androidpublisher')
        ) {
          return send(400, { error: 'invalid_grant' });
        }
        const token = `ya29.standin-${randomBytes(8).toString('hex')}`;
        issued.add(token);
        return send(200, { access_token: token, expires_in: 3599, token_type: 'Bearer' });
      }
      const bearer = request.headers.authorization?.replace(/^Bearer /, '') ?? '';
      if (!issued.has(bearer))
        return send(401, { error: { code: 401, message: 'Request had invalid authentication credentials.' } });
      const prefix = `/androidpublisher/v3/applications/${packageName}/purchases/`;
      if (!path.startsWith(prefix))
        return send(404, { error: { code: 404, message: 'No application was found for the given package name.' } });
      const rest = path.slice(prefix.length);
      const get = rest.match(/^subscriptionsv2\/tokens\/([^/]+)$/);
      if (request.method === 'GET' && get) {
        const purchase = standIn.purchases.get(decodeURIComponent(get[1]!));
        return purchase
          ? send(200, purchase)
          : send(404, { error: { code: 404, message: 'The purchase token was not found.' } });
      }
      const ack = rest.match(/^subscriptions\/([^/]+)\/tokens\/([^/:]+):acknowledge$/);
      if (request.method === 'POST' && ack) {
        const token = decodeURIComponent(ack[2]!);
        const purchase = standIn.purchases.get(token);
        if (!purchase) return send(404, { error: { code: 404 } });
        purchase.acknowledgementState = 'ACKNOWLEDGEMENT_STATE_ACKNOWLEDGED';
        standIn.acknowledged.push(token);
        return send(204);
      }
      return send(404, { error: { code: 404 } });
    });
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const standIn: StandIn = {
    url,
    tokenUrl: `${url}/token`,
    serviceAccount: {
      client_email: 'verifier@example-project.iam.gserviceaccount.com',
      private_key: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
      token_uri: `${url}/token`,
    },
    purchases: new Map(),
    acknowledged: [],
    tokenRequests: 0,
    failNext: (fragment, status) => failures.push({ fragment, status }),
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  return standIn;
}

/** A SubscriptionPurchaseV2 as Google returns it for an active, unacknowledged purchase. */
export function subscriptionPurchase(
  productId: string,
  expiresInMs: number,
  overrides: Record<string, unknown> = {},
): Record<string, unknown> {
  return {
    kind: 'androidpublisher#subscriptionPurchaseV2',
    regionCode: 'US',
    startTime: new Date(Date.now() - 60_000).toISOString(),
    subscriptionState: 'SUBSCRIPTION_STATE_ACTIVE',
    latestOrderId: `GPA.3345-${randomBytes(2).toString('hex')}-${randomBytes(2).toString('hex')}-00000`,
    acknowledgementState: 'ACKNOWLEDGEMENT_STATE_PENDING',
    lineItems: [
      {
        productId,
        expiryTime: new Date(Date.now() + expiresInMs).toISOString(),
        autoRenewingPlan: { autoRenewEnabled: true },
        offerDetails: { basePlanId: 'monthly' },
      },
    ],
    ...overrides,
  };
}
