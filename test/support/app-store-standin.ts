/**
 * A local stand-in for the App Store Server API: checks the ES256 bearer token an App Store
 * Connect key signs as Apple does (alg, typ, kid; iss, aud, bid; issued now, expiring within an
 * hour), and answers Get Transaction Info and Get All Subscription Statuses with JWS signed by a
 * test certificate chain (test/fixtures/app-store-standin: a root, and intermediate and leaf
 * carrying Apple's certificate-policy OIDs, "Test only, not Apple").
 * Verifiers that trust that test root accept them exactly as they accept Apple's.
 */
import { createPrivateKey, createPublicKey, randomBytes, sign, verify, X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * The claims Apple requires of an App Store Server API token: its issuer, audience and bundle id;
 * issued now (a minute of clock skew), not expired, and expiring within 60 minutes of issue.
 */
function tokenClaimsValid(claims: Record<string, unknown>, issuerId: string, bundleId: string): boolean {
  const { iss, aud, bid, iat, exp } = claims;
  const now = Date.now() / 1000;
  return (
    iss === issuerId &&
    aud === 'appstoreconnect-v1' &&
    bid === bundleId &&
    typeof iat === 'number' &&
    typeof exp === 'number' &&
    iat <= now + 60 &&
    exp > now &&
    exp - iat <= 3600
  );
}

const fixture = (name: string) => readFileSync(new URL(`../fixtures/app-store-standin/${name}`, import.meta.url));
export const STAND_IN_ROOT = new X509Certificate(fixture('root.pem'));
const chain = ['leaf.pem', 'intermediate.pem', 'root.pem'].map((name) =>
  new X509Certificate(fixture(name)).raw.toString('base64'),
);
const leafKey = createPrivateKey(fixture('leaf.p8'));
export const API_KEY_PEM = fixture('api-key.p8').toString();
const apiPublicKey = createPublicKey(createPrivateKey(API_KEY_PEM));

const part = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

export function signedByStandIn(payload: Record<string, unknown>): string {
  const input = `${part({ alg: 'ES256', x5c: chain })}.${part(payload)}`;
  return `${input}.${sign('sha256', Buffer.from(input), { key: leafKey, dsaEncoding: 'ieee-p1363' }).toString('base64url')}`;
}

export interface AppStoreStandIn {
  url: string;
  credentials: { issuer_id: string; key_id: string; private_key: string };
  /** JWSTransaction payloads by transaction id. */
  transactions: Map<string, Record<string, unknown>>;
  /** JWSRenewalInfo payloads by original transaction id: Get All Subscription Statuses signs them too. */
  renewals: Map<string, Record<string, unknown>>;
  /** Subscription status by original transaction id (1 active, 2 expired, 3 billing retry, 4 grace, 5 revoked); default 1. */
  statuses: Map<string, number>;
  requests: string[];
  failNext(fragment: string, status: number | 'hang'): void;
  /** The next request whose path contains `fragment` is answered this, as JSON (text when a string). */
  answerNext(fragment: string, status: number, body: unknown, headers?: Record<string, string>): void;
  close(): Promise<void>;
}

export async function startAppStoreStandIn(bundleId: string, port = 0): Promise<AppStoreStandIn> {
  const credentials = {
    issuer_id: '57246542-96fe-1a63-e053-0824d011072a',
    key_id: 'STANDIN01',
    private_key: API_KEY_PEM,
  };
  const failures: { fragment: string; status: number | 'hang'; body?: unknown; headers?: Record<string, string> }[] =
    [];
  const server: Server = createServer((request, response) => {
    const path = request.url ?? '';
    const send = (status: number, body: unknown) =>
      response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    standIn.requests.push(path);
    const failure = failures.findIndex((f) => path.includes(f.fragment));
    if (failure >= 0) {
      const { status, body, headers } = failures.splice(failure, 1)[0]!;
      if (status === 'hang') return;
      if (headers) for (const [name, value] of Object.entries(headers)) response.setHeader(name, value);
      if (typeof body === 'string') return response.writeHead(status, { 'content-type': 'text/plain' }).end(body);
      return send(status, body ?? { errorCode: status * 10000, errorMessage: 'stand-in failure' });
    }
    const [header, claims, signature] = (request.headers.authorization ?? '').replace(/^Bearer /, '').split('.');
    const valid =
      header &&
      claims &&
      signature &&
      verify(
        'sha256',
        Buffer.from(`${header}.${claims}`),
        { key: apiPublicKey, dsaEncoding: 'ieee-p1363' },
        Buffer.from(signature, 'base64url'),
      ) &&
      (({ alg, typ, kid }) => alg === 'ES256' && typ === 'JWT' && kid === credentials.key_id)(
        JSON.parse(Buffer.from(header, 'base64url').toString()),
      ) &&
      tokenClaimsValid(JSON.parse(Buffer.from(claims, 'base64url').toString()), credentials.issuer_id, bundleId);
    if (!valid) return send(401, { errorCode: 4010000, errorMessage: 'Unauthenticated' });
    const transaction = path.match(/^\/inApps\/v1\/transactions\/([^/?]+)/);
    if (transaction) {
      const payload = standIn.transactions.get(decodeURIComponent(transaction[1]!));
      return payload
        ? send(200, { signedTransactionInfo: signedByStandIn(payload) })
        : send(404, { errorCode: 4040010, errorMessage: 'Transaction id not found.' });
    }
    const statuses = path.match(/^\/inApps\/v1\/subscriptions\/([^/?]+)/);
    if (statuses) {
      // Any transaction id of the purchase will do, as at Apple.
      const id = decodeURIComponent(statuses[1]!);
      const known =
        standIn.transactions.get(id) ?? [...standIn.transactions.values()].find((t) => t.originalTransactionId === id);
      if (!known) return send(404, { errorCode: 4040010, errorMessage: 'Transaction id not found.' });
      // The latest transaction of the same original purchase.
      const latest = [...standIn.transactions.values()]
        .filter((t) => t.originalTransactionId === known.originalTransactionId)
        .sort((a, b) => Number(b.purchaseDate) - Number(a.purchaseDate))[0]!;
      const renewal = standIn.renewals.get(String(known.originalTransactionId));
      return send(200, {
        environment: known.environment,
        bundleId,
        data: [
          {
            subscriptionGroupIdentifier: '21289261',
            lastTransactions: [
              {
                originalTransactionId: known.originalTransactionId,
                status: standIn.statuses.get(String(known.originalTransactionId)) ?? 1,
                signedTransactionInfo: signedByStandIn(latest),
                ...(renewal ? { signedRenewalInfo: signedByStandIn(renewal) } : {}),
              },
            ],
          },
        ],
      });
    }
    return send(404, { errorCode: 4040000, errorMessage: 'Not found' });
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  const standIn: AppStoreStandIn = {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    credentials,
    transactions: new Map(),
    renewals: new Map(),
    statuses: new Map(),
    requests: [],
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

export function appStoreTransaction(
  bundleId: string,
  overrides: Record<string, unknown> = {},
): Record<string, unknown> {
  const id = String(2_000_000_000_000_000n + BigInt(`0x${randomBytes(4).toString('hex')}`));
  const now = Date.now();
  return {
    transactionId: id,
    originalTransactionId: id,
    bundleId,
    productId: 'premium_monthly',
    purchaseDate: now - 60_000,
    originalPurchaseDate: now - 60_000,
    expiresDate: now + 30 * 86_400_000,
    type: 'Auto-Renewable Subscription',
    environment: 'Sandbox',
    signedDate: now,
    price: 9990,
    currency: 'USD',
    ...overrides,
  };
}

/** DER of one element (definite lengths). */
function der(tag: number, content: Buffer): Buffer {
  const length = content.length;
  const lengthBytes =
    length < 0x80
      ? Buffer.from([length])
      : (() => {
          const bytes = Buffer.from(length.toString(16).padStart(length > 0xff ? 4 : 2, '0'), 'hex');
          return Buffer.concat([Buffer.from([0x80 | bytes.length]), bytes]);
        })();
  return Buffer.concat([Buffer.from([tag]), lengthBytes, content]);
}
const integer = (n: number) => der(0x02, Buffer.from(n.toString(16).padStart(n > 0xff ? 4 : 2, '0'), 'hex'));
const attribute = (type: number, value: Buffer) =>
  der(0x30, Buffer.concat([integer(type), integer(1), der(0x04, value)]));

/**
 * A legacy app receipt's structure (PKCS#7 signedData whose content is the receipt attribute set,
 * with one in-app purchase naming the transaction), enough for Apple's ReceiptUtility; unsigned,
 * which is fine: the receipt is never trusted, only the App Store Server API's answer is.
 */
export function appReceipt(transactionId: string): string {
  const inApp = der(0x31, attribute(1703, der(0x0c, Buffer.from(transactionId))));
  const receipt = der(0x31, Buffer.concat([attribute(2, der(0x0c, Buffer.from('com.example'))), attribute(17, inApp)]));
  const oid = (hex: string) => der(0x06, Buffer.from(hex, 'hex'));
  const content = der(0x30, Buffer.concat([oid('2a864886f70d010701'), der(0xa0, der(0x04, receipt))]));
  const signedData = der(0x30, Buffer.concat([integer(1), der(0x31, Buffer.alloc(0)), content]));
  return der(0x30, Buffer.concat([oid('2a864886f70d010702'), der(0xa0, signedData)])).toString('base64');
}
