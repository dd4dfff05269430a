/**
 * docs/store-setup.md as an operator and an app developer follow it. Every `admin` command of its
 * sh blocks runs as a process, as written (the key files it names are generated ones). Every
 * request its Swift and Kotlin snippets make is read out of the snippet (method, path, headers,
 * body keys), checked against the OpenAPI document, and replayed against the local API, the
 * stores played by stand-ins: a StoreKit 2 transaction signed by the stand-in chain, whose root
 * this file trusts in place of Apple's, and a purchase token the Google Play stand-in knows.
 */
import { createPrivateKey, generateKeyPairSync, sign, X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';

vi.mock('../../lib/stores/apple-root-ca-g3.js', () => import('../support/stand-in-apple-root.js'));

import type { LocalGateway } from '../../local/gateway.js';
import { appStoreTransaction, signedByStandIn } from '../support/app-store-standin.js';
import { type StandIn, startGooglePlayStandIn, subscriptionPurchase } from '../support/google-play-standin.js';
import { admin, REPO_ROOT } from '../support/processes.js';

const GUIDE = readFileSync(join(REPO_ROOT, 'docs/store-setup.md'), 'utf8');
const OPENAPI = JSON.parse(readFileSync(join(REPO_ROOT, 'docs/openapi.json'), 'utf8'));
/** The bundle id and package name the guide's commands name. */
const APP_PACKAGE = 'com.example.demo';

const blocks = (language: string) =>
  [...GUIDE.matchAll(new RegExp(`\`\`\`${language}\\n([\\s\\S]*?)\`\`\``, 'g'))].map((match) => match[1]!);

const ADMIN = 'npm run --silent admin -- ';
/** The guide's admin commands as argument lists: continued lines joined, comments dropped, quotes removed. */
const guideCommands = (): string[][] =>
  blocks('sh')
    .flatMap((block) => block.replace(/\\\n\s*/g, ' ').split('\n'))
    .filter((line) => line.startsWith(ADMIN))
    .map((line) =>
      (
        line
          .slice(ADMIN.length)
          .replace(/\s+#.*$/, '')
          .match(/"[^"]*"|\S+/g) ?? []
      ).map((word) => word.replace(/^"(.*)"$/, '$1')),
    );

/** A request as a snippet makes it: header values are literals or the snippet's variables' names. */
interface SnippetRequest {
  method: string;
  path: string;
  headers: { name: string; value: string }[];
  bodyKeys?: string[];
  contentType?: string;
}

const literalOrName = (expression: string) => expression.replace(/^"(.*)"$/, '$1');

function swiftRequests(code: string): SnippetRequest[] {
  const headers = [...code.matchAll(/request\.setValue\(("[^"]*"|\w+), forHTTPHeaderField: "([^"]+)"\)/g)].map(
    ([, value, name]) => ({ name: name!, value: literalOrName(value!) }),
  );
  return [...code.matchAll(/request\(\s*"(GET|POST)",\s*"([^"]+)"(?:,\s*body: \[([^\]]*)\])?/g)].map(
    ([, method, path, body]) => ({
      method: method!,
      path: `/${path}`,
      // The snippet sets Content-Type only with a body, as JSON.
      headers: headers.filter((header) => body !== undefined || header.name !== 'Content-Type'),
      ...(body !== undefined ? { bodyKeys: [...body.matchAll(/"(\w+)":/g)].map((match) => match[1]!) } : {}),
    }),
  );
}

function kotlinRequests(code: string): SnippetRequest[] {
  const headers = [...code.matchAll(/\.header\("([^"]+)", ("[^"]*"|\w+)\)/g)].map(([, name, value]) => ({
    name: name!,
    value: literalOrName(value!),
  }));
  const mediaType = code.match(/toRequestBody\("([^"]+)"\.toMediaType\(\)\)/)?.[1];
  return [...code.matchAll(/request\("([^"]+)"\)\.(post|get)\((\w*)\)/g)].map(([, path, method]) => ({
    method: method!.toUpperCase(),
    path: `/${path}`,
    headers,
    ...(method === 'post'
      ? {
          bodyKeys: [...code.matchAll(/\.put\("(\w+)"/g)].map((match) => match[1]!),
          // OkHttp adds the charset to a media type without one.
          contentType: `${mediaType}; charset=utf-8`,
        }
      : {}),
  }));
}

const resolveRef = (ref: string) =>
  ref
    .slice(2)
    .split('/')
    .reduce((node: any, part) => node[part], OPENAPI);

/** What the OpenAPI document asks of the operation: it exists, its headers are sent, the body has its keys. */
function expectDocumented(request: SnippetRequest) {
  const operation = OPENAPI.paths[request.path]?.[request.method.toLowerCase()];
  expect(operation, `${request.method} ${request.path} in docs/openapi.json`).toBeDefined();
  const sent = new Set(request.headers.map((header) => header.name.toLowerCase()));
  const parameters = (operation.parameters ?? []).map((p: any) => (p.$ref ? resolveRef(p.$ref) : p));
  const headerParameters = parameters.filter((p: any) => p.in === 'header');
  const securityHeaders = (operation.security as Record<string, unknown>[])
    .flatMap((requirement) => Object.keys(requirement))
    .map((scheme) => OPENAPI.components.securitySchemes[scheme])
    .filter((scheme: any) => scheme.in === 'header')
    .map((scheme: any) => scheme.name.toLowerCase());
  const required = headerParameters.filter((p: any) => p.required).map((p: any) => p.name.toLowerCase());
  expect(required.filter((name: string) => !sent.has(name))).toEqual([]);
  expect(sent.has('x-api-key') && securityHeaders.includes('x-api-key')).toBe(true);
  // Every header sent is one the document names (Accept and Content-Type are OpenAPI's own).
  const known = new Set([
    ...headerParameters.map((p: any) => p.name.toLowerCase()),
    ...securityHeaders,
    'accept',
    'content-type',
  ]);
  expect([...sent].filter((name) => !known.has(name))).toEqual([]);
  if (request.bodyKeys) {
    const schemaRef = operation.requestBody.content['application/json'].schema;
    const schema = schemaRef.$ref ? resolveRef(schemaRef.$ref) : schemaRef;
    expect(request.bodyKeys.filter((key) => !(key in schema.properties))).toEqual([]);
    expect((schema.required as string[]).filter((key) => !request.bodyKeys!.includes(key))).toEqual([]);
  } else {
    expect(operation.requestBody).toBeUndefined();
  }
}

/** A StoreKit transaction as Xcode's local StoreKit testing signs it: one self-signed certificate of its own. */
function signedLikeXcode(payload: Record<string, unknown>): string {
  const fixture = (name: string) => readFileSync(new URL(`../fixtures/app-store-standin/${name}`, import.meta.url));
  const certificate = new X509Certificate(fixture('root.pem')).raw.toString('base64');
  const part = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
  const input = `${part({ alg: 'ES256', kid: 'Apple_Xcode_Key', x5c: [certificate] })}.${part(payload)}`;
  const signature = sign('sha256', Buffer.from(input), {
    key: createPrivateKey(fixture('root.p8')),
    dsaEncoding: 'ieee-p1363',
  });
  return `${input}.${signature.toString('base64url')}`;
}

describe('docs/store-setup.md, followed as written', () => {
  let google: StandIn;
  let gateway: LocalGateway;
  let contractFetch: typeof import('../support/contract.js').contractFetch;
  let dir: string;
  let app: { app_id: string; secret_key: string; sdk_key: string };

  beforeAll(async () => {
    google = await startGooglePlayStandIn(APP_PACKAGE);
    // Store URLs are configuration read once at start-up: lib/ is imported after they point at the stand-in.
    process.env.GOOGLE_OAUTH_TOKEN_URL = google.tokenUrl;
    process.env.GOOGLE_PLAY_API_BASE_URL = google.url;
    ({ contractFetch } = await import('../support/contract.js'));
    gateway = await (await import('../../local/gateway.js')).startGateway({ port: 0, functionTimeoutMs: 60_000 });
    dir = await mkdtemp(join(tmpdir(), 'store-setup-'));
  });
  afterAll(async () => {
    await gateway?.close();
    await google?.close();
  });

  // Each command is a process of 2-3 s, more on a loaded machine.
  it('every admin command of the guide runs as written, and stores show says what they set', {
    timeout: 240_000,
  }, async () => {
    const files: Record<string, string> = {
      'SubscriptionKey_ABC123DEFG.p8': join(dir, 'SubscriptionKey_ABC123DEFG.p8'),
      'play-service-account.json': join(dir, 'play-service-account.json'),
    };
    const p8 = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ type: 'pkcs8', format: 'pem' });
    await writeFile(files['SubscriptionKey_ABC123DEFG.p8']!, p8);
    await writeFile(files['play-service-account.json']!, JSON.stringify(google.serviceAccount));

    const commands = guideCommands();
    expect(
      commands.map((args) =>
        args
          .slice(
            0,
            args.findIndex((arg) => arg.startsWith('--')),
          )
          .join(' '),
      ),
    ).toEqual([
      'apps create',
      'products put',
      'entitlements put',
      'stores apple set',
      'stores google set',
      'stores show',
    ]);
    let shown: any;
    for (const args of commands) {
      const written = args.map((arg) => (arg === '$APP_ID' ? app.app_id : (files[arg] ?? arg)));
      const result = await admin(...written, '--json');
      expect(result.code, `${written.join(' ')}: ${result.stdout}${result.stderr}`).toBe(0);
      const output = JSON.parse(result.stdout);
      if (args[0] === 'apps') app = output;
      if (args[1] === 'show') shown = output;
      expect(result.stdout).not.toContain('PRIVATE KEY');
    }
    expect(shown).toMatchObject({
      app_id: app.app_id,
      app_store: {
        bundle_id: APP_PACKAGE,
        environment: 'Production',
        accepts_environments: ['Production', 'Sandbox'],
        app_apple_id: 1234567890,
        server_api: { issuer_id: '57246542-96fe-1a63-e053-0824d011072a', key_id: 'ABC123DEFG' },
      },
      google_play: {
        package_name: APP_PACKAGE,
        client_email: google.serviceAccount.client_email,
        push_audience: 'https://api.example.com/notifications/google-play/app_0123456789abcdef',
        push_service_account: 'rtdn-push@my-project.iam.gserviceaccount.com',
      },
    });
  });

  it('the Swift and Kotlin snippets make requests the OpenAPI document describes, and they verify and read customer info', {
    timeout: 120_000,
  }, async () => {
    expect(app, 'the commands above set the app up').toBeDefined();
    const [swift] = blocks('swift');
    const [kotlin] = blocks('kotlin');
    const snippets = { swift: swiftRequests(swift!), kotlin: kotlinRequests(kotlin!) };
    for (const requests of Object.values(snippets)) {
      expect(requests.map((request) => `${request.method} ${request.path}`)).toEqual([
        'POST /receipt/verify/first',
        'GET /v2/users/customer_info',
      ]);
      for (const request of requests) expectDocumented(request);
    }

    // One user of one app, buying on both platforms.
    const user = 'guide-user';
    const variables: Record<string, string> = { sdkKey: app.sdk_key, appId: app.app_id, userId: user };
    const replay = async (request: SnippetRequest, body?: Record<string, string>) => {
      const headers = Object.fromEntries(
        request.headers.map(({ name, value }) => [name, variables[value] ?? value] as [string, string]),
      );
      if (request.contentType) headers['Content-Type'] = request.contentType;
      const response = await contractFetch(`${gateway.url}${request.path}`, {
        method: request.method,
        headers,
        ...(body ? { body: JSON.stringify(body) } : {}),
      });
      return { status: response.status, body: (await response.json()) as any };
    };
    const bodyOf = (request: SnippetRequest, values: Record<string, string>) =>
      Object.fromEntries(request.bodyKeys!.map((key) => [key, values[key]!]));

    // StoreKit 2: the jwsRepresentation of a transaction (signed by the stand-in chain here) and its productID.
    const [swiftVerify, swiftInfo] = snippets.swift;
    const jws = signedByStandIn(appStoreTransaction(APP_PACKAGE, { productId: 'premium_monthly' }));
    const verifiedIos = await replay(
      swiftVerify!,
      bodyOf(swiftVerify!, { receipt: jws, productId: 'premium_monthly' }),
    );
    expect(verifiedIos.status, JSON.stringify(verifiedIos.body)).toBe(200);
    expect(verifiedIos.body.data).toMatchObject({ verification_status: 'valid', product_id: 'premium_monthly' });
    const infoIos = await replay(swiftInfo!);
    expect(infoIos.status).toBe(200);
    expect(infoIos.body.data.entitlements.pro).toMatchObject({
      active: true,
      store: 'app_store',
      environment: 'sandbox',
    });

    // Play Billing: the purchase token and the product id.
    const [kotlinVerify, kotlinInfo] = snippets.kotlin;
    google.purchases.set('guide-token-0000001', subscriptionPurchase('premium_monthly', 30 * 86_400_000));
    const verifiedAndroid = await replay(
      kotlinVerify!,
      bodyOf(kotlinVerify!, { receipt: 'guide-token-0000001', productId: 'premium_monthly' }),
    );
    expect(verifiedAndroid.status, JSON.stringify(verifiedAndroid.body)).toBe(200);
    expect(verifiedAndroid.body.data).toMatchObject({ verification_status: 'valid', product_id: 'premium_monthly' });
    expect(google.acknowledged).toContain('guide-token-0000001');
    const infoAndroid = await replay(kotlinInfo!);
    expect(infoAndroid.status).toBe(200);
    expect(infoAndroid.body.data.subscriptions).toHaveLength(2);

    // What the guide says of Xcode's local StoreKit testing: refused, for the reason it gives.
    const xcode = signedLikeXcode(appStoreTransaction(APP_PACKAGE, { productId: 'premium_monthly' }));
    const refused = await replay(swiftVerify!, bodyOf(swiftVerify!, { receipt: xcode, productId: 'premium_monthly' }));
    expect(refused.status).toBe(400);
    expect(refused.body).toMatchObject({ status: 'error', code: 'INVALID_RECEIPT' });
    expect(refused.body.message).toContain("the certificate chain is not Apple's");
    expect(GUIDE).toContain('`400 INVALID_RECEIPT` "the certificate chain is not Apple\'s"');
  });
});
