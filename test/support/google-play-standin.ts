/**
 * A local stand-in for Google's OAuth token endpoint and the Play Developer API, speaking their
 * wire formats: the JWT-bearer grant (the assertion's RS256 signature is checked against the
 * service account's public key), purchases.subscriptionsv2.get and subscriptions.acknowledge;
 * and for real-time developer notifications, Google's OIDC key set (JWKS) with tokens signed as
 * Pub/Sub signs its pushes, and the Pub/Sub push body.
 */
import { generateKeyPairSync, type KeyObject, randomBytes, sign, verify } from 'node:crypto';
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
  /** Requests to purchases.subscriptionsv2.get, answered or failed: what Google's quota counts. */
  purchaseReads: number;
  /** Google's OIDC keys, as https://www.googleapis.com/oauth2/v3/certs serves them. */
  jwksUrl: string;
  jwksRequests: number;
  /** The kid of the key the JWKS serves from the start (Google's current key). */
  oidcKid: string;
  /** A new signing key; published: served by the JWKS from now on (Google rotating its keys). */
  newOidcKey(options?: { published?: boolean }): string;
  /** The token Pub/Sub puts in a push's Authorization header (`Bearer` + this). */
  pushToken(options: PushTokenOptions): string;
  /** Make the next request to a path containing this fragment answer with this status (or hang). */
  failNext(fragment: string, status: number | 'hang'): void;
  /** The next request whose path contains `fragment` is answered this, as JSON (text when a string). */
  answerNext(fragment: string, status: number, body: unknown, headers?: Record<string, string>): void;
  close(): Promise<void>;
}

/** The push service account Pub/Sub signs as in these tests. */
export const PUSH_SERVICE_ACCOUNT = 'rtdn-push@example-project.iam.gserviceaccount.com';

export interface PushTokenOptions {
  audience: string;
  /** Default PUSH_SERVICE_ACCOUNT. */
  email?: string;
  emailVerified?: boolean;
  /** Default https://accounts.google.com. */
  issuer?: string;
  /** Seconds since the epoch; default now, and an hour after it. */
  issuedAt?: number;
  expiresAt?: number;
  /** The key to sign with (default oidcKid). */
  kid?: string;
  /** Sign with a key of nobody's while naming `kid`: the signature does not verify. */
  forgeSignature?: boolean;
  alg?: string;
}

export async function startGooglePlayStandIn(packageName: string, port = 0): Promise<StandIn> {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const oidcKeys = new Map<string, { privateKey: KeyObject; jwk: Record<string, unknown>; published: boolean }>();
  const newOidcKey = ({ published = true }: { published?: boolean } = {}) => {
    const pair = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const kid = randomBytes(20).toString('hex');
    const jwk = { ...pair.publicKey.export({ format: 'jwk' }), kid, alg: 'RS256', use: 'sig' };
    oidcKeys.set(kid, { privateKey: pair.privateKey, jwk, published });
    return kid;
  };
  const issued = new Set<string>();
  // Google's path, and one of this stand-in's own: the keys are kept in the table by URL, and a port
  // a closed stand-in used is soon another's, whose keys must not be taken for this one's.
  const jwksPath = `/oauth2/v3/certs/${randomBytes(6).toString('hex')}`;
  const failures: { fragment: string; status: number | 'hang'; body?: unknown; headers?: Record<string, string> }[] =
    [];
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
      if (path.includes('/subscriptionsv2/')) standIn.purchaseReads += 1;
      const failure = failures.findIndex((f) => path.includes(f.fragment));
      if (failure >= 0) {
        const { status, body: answer, headers } = failures.splice(failure, 1)[0]!;
        if (status === 'hang') return; // never answers
        if (headers) for (const [name, value] of Object.entries(headers)) response.setHeader(name, value);
        if (typeof answer === 'string') return response.writeHead(status, { 'content-type': 'text/plain' }).end(answer);
        return send(status, answer ?? { error: { code: status, message: 'stand-in failure' } });
      }
      if (request.method === 'GET' && path.split('?')[0] === jwksPath) {
        standIn.jwksRequests += 1;
        return send(200, { keys: [...oidcKeys.values()].filter((k) => k.published).map((k) => k.jwk) });
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
        const jose = header ? JSON.parse(Buffer.from(header, 'base64url').toString()) : {};
        const nowSeconds = Date.now() / 1000;
        // As Google's OAuth 2.0 server checks a JWT bearer grant: a form post, an RS256 assertion by
        // the service account, for this token URL and the Play scope, issued now, for at most an hour.
        if (!String(request.headers['content-type']).startsWith('application/x-www-form-urlencoded')) {
          return send(400, { error: 'invalid_request' });
        }
        if (
          form.get('grant_type') !== 'urn:ietf:params:oauth:grant-type:jwt-bearer' ||
          !signed ||
          jose.alg !== 'RS256' ||
          jose.typ !== 'JWT' ||
          parsed.iss !== standIn.serviceAccount.client_email ||
          parsed.aud !== standIn.tokenUrl ||
          parsed.scope !== 'https://www.googleapis.com/auth/androidpublisher' ||
          typeof parsed.iat !== 'number' ||
          parsed.iat > nowSeconds + 60 ||
          typeof parsed.exp !== 'number' ||
          parsed.exp <= nowSeconds ||
          parsed.exp - parsed.iat > 3600
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
      // This stand-in's own: lib/ keeps access tokens by account, and one another stand-in issued is not valid here.
      client_email: `verifier-${randomBytes(4).toString('hex')}@example-project.iam.gserviceaccount.com`,
      private_key: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
      token_uri: `${url}/token`,
    },
    purchases: new Map(),
    acknowledged: [],
    tokenRequests: 0,
    purchaseReads: 0,
    jwksUrl: `${url}${jwksPath}`,
    jwksRequests: 0,
    oidcKid: newOidcKey(),
    newOidcKey,
    pushToken: (options) => {
      const kid = options.kid ?? standIn.oidcKid;
      const key = options.forgeSignature
        ? generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey
        : oidcKeys.get(kid)!.privateKey;
      const now = Math.floor(Date.now() / 1000);
      const part = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
      const input = `${part({ alg: options.alg ?? 'RS256', kid, typ: 'JWT' })}.${part({
        aud: options.audience,
        azp: '112233445566778899000',
        email: options.email ?? PUSH_SERVICE_ACCOUNT,
        email_verified: options.emailVerified ?? true,
        exp: options.expiresAt ?? (options.issuedAt ?? now) + 3600,
        iat: options.issuedAt ?? now,
        iss: options.issuer ?? 'https://accounts.google.com',
        sub: '112233445566778899000',
      })}`;
      return `${input}.${sign('sha256', Buffer.from(input), key).toString('base64url')}`;
    },
    failNext: (fragment, status) => failures.push({ fragment, status }),
    answerNext: (fragment, status, body, headers) =>
      failures.push({ fragment, status, body, ...(headers ? { headers } : {}) }),
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

/** Google's Money: whole units as a decimal string, and billionths. */
export const money = (currencyCode: string, amount: number) => ({
  currencyCode,
  units: String(Math.trunc(amount)),
  nanos: Math.round((amount - Math.trunc(amount)) * 1e9),
});

export interface PurchaseFixture {
  state?: string;
  /** From now; negative: in the past. Or a literal expiryTime. */
  expiresInMs?: number;
  expiryTime?: string;
  startTime?: string;
  price?: ReturnType<typeof money>;
  autoRenew?: boolean;
  testPurchase?: boolean;
  orderId?: string;
  /** The product a deferred plan change switches to at the next renewal. */
  replacementProductId?: string;
}

/**
 * A SubscriptionPurchaseV2 as Google returns it once it is acknowledged, in a given state, with
 * the line item's recurring price and its latest successful order.
 */
export function subscriptionPurchaseV2(productId: string, fixture: PurchaseFixture = {}): Record<string, unknown> {
  const orderId =
    fixture.orderId ?? `GPA.3345-${randomBytes(2).toString('hex')}-${randomBytes(2).toString('hex')}-00003`;
  return {
    kind: 'androidpublisher#subscriptionPurchaseV2',
    regionCode: 'US',
    startTime: fixture.startTime ?? new Date(Date.now() - 90 * 86_400_000).toISOString(),
    subscriptionState: fixture.state ?? 'SUBSCRIPTION_STATE_ACTIVE',
    latestOrderId: orderId,
    acknowledgementState: 'ACKNOWLEDGEMENT_STATE_ACKNOWLEDGED',
    ...(fixture.testPurchase ? { testPurchase: {} } : {}),
    lineItems: [
      {
        productId,
        expiryTime: fixture.expiryTime ?? new Date(Date.now() + (fixture.expiresInMs ?? 30 * 86_400_000)).toISOString(),
        latestSuccessfulOrderId: orderId,
        autoRenewingPlan: {
          autoRenewEnabled: fixture.autoRenew ?? true,
          recurringPrice: fixture.price ?? money('USD', 9.99),
        },
        offerDetails: { basePlanId: 'monthly' },
        ...(fixture.replacementProductId
          ? { deferredItemReplacement: { productId: fixture.replacementProductId } }
          : {}),
      },
    ],
  };
}

/** The body Pub/Sub POSTs to a push endpoint for one message of the RTDN topic. */
export function pushBody(
  developerNotification: unknown,
  messageId: string,
  options: { publishTime?: string; data?: string } = {},
): Record<string, unknown> {
  const publishTime = options.publishTime ?? new Date().toISOString();
  return {
    message: {
      attributes: {},
      data: options.data ?? Buffer.from(JSON.stringify(developerNotification)).toString('base64'),
      messageId,
      message_id: messageId,
      publishTime,
      publish_time: publishTime,
    },
    subscription: 'projects/example-project/subscriptions/play-rtdn-push',
  };
}
