/**
 * What an app sells and shows (products, entitlements, segments, offerings, switches, ads) and the exchange rates
 * revenue is reported in: each put from a JSON file, validated whole before anything is written.
 */
import { readFile } from 'node:fs/promises';
import type * as z from 'zod/mini';
import { getSegments, putAdsConfig, putSegments } from '../../lib/data/app-config.js';
import { putEntitlements } from '../../lib/data/entitlements.js';
import { putOfferings, putRemoteSwitches, refreshOfferedProducts } from '../../lib/data/offerings.js';
import { readPaywalls } from '../../lib/data/paywalls.js';
import { listProducts, putProducts } from '../../lib/data/products.js';
import { putExchangeRates } from '../../lib/data/revenue-reads.js';
import { toDetails } from '../../lib/http/parse.js';
import { adsConfigSchema } from '../../lib/schemas/ads.js';
import { entitlementCatalogueSchema } from '../../lib/schemas/entitlement.js';
import { exchangeRatesSchema } from '../../lib/schemas/fx.js';
import { MAX_SHOWN_DOCUMENT_BYTES, offeringsDocumentSchema, remoteSwitchesSchema } from '../../lib/schemas/offering.js';
import { type Product, productCatalogueSchema } from '../../lib/schemas/product.js';
import { BUILT_IN_SEGMENTS, segmentCatalogueSchema } from '../../lib/schemas/segment.js';
import { CliError, type CommandTable } from '../command.js';
import { requireApp, required } from '../options.js';

/** A problem a file has beyond its schema: the path is its place in the file, as `[0.products.1]`. */
interface FileProblem {
  path: (string | number)[];
  message: string;
}

/**
 * The file, parsed and valid; else every problem of it in one error (the schema's and those
 * `check` finds in the raw JSON), and nothing is written.
 */
async function readValidatedFile<T>(
  file: string,
  schema: z.ZodMiniType<T>,
  what: string,
  check?: (raw: unknown) => Promise<FileProblem[]>,
): Promise<T> {
  let raw: unknown;
  try {
    raw = JSON.parse(await readFile(file, 'utf8'));
  } catch (error) {
    throw new CliError(`cannot read ${file} as JSON: ${(error as Error).message}`, 'INVALID_FILE');
  }
  const parsed = schema.safeParse(raw);
  const problems = parsed.success
    ? []
    : toDetails('body', parsed.error).map(
        (d) => `${d.path.replace(/^body\.?/, '[')}${d.path === 'body' ? '' : ']'} ${d.message}`,
      );
  for (const problem of (await check?.(raw)) ?? []) problems.push(`[${problem.path.join('.')}] ${problem.message}`);
  if (!parsed.success || problems.length > 0) {
    throw new CliError(`${file} is not a valid ${what}:\n  ${problems.join('\n  ')}`, 'INVALID_FILE');
  }
  return parsed.data;
}

/** Product ids an entitlement file names that the app's catalogue does not have. */
async function unknownProducts(appId: string, raw: unknown): Promise<FileProblem[]> {
  if (!Array.isArray(raw)) return [];
  const catalogue = new Set((await listProducts(appId)).map((product) => product.id));
  return raw.flatMap((entry: unknown, index) => {
    const products = (entry as { products?: unknown } | null)?.products;
    if (!Array.isArray(products)) return [];
    return products.flatMap((product: unknown, at) =>
      typeof product === 'string' && !catalogue.has(product)
        ? [{ path: [index, 'products', at], message: `product ${product} is not in the catalogue of ${appId}` }]
        : [],
    );
  });
}

/** A stored document over MAX_SHOWN_DOCUMENT_BYTES: a launch reads it whole. */
function tooLarge(raw: unknown, what: string): FileProblem[] {
  const bytes = Buffer.byteLength(JSON.stringify(raw) ?? '');
  return bytes > MAX_SHOWN_DOCUMENT_BYTES
    ? [{ path: [], message: `the ${what} take ${bytes} bytes of JSON, more than ${MAX_SHOWN_DOCUMENT_BYTES}` }]
    : [];
}

const asArray = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);
const field = (value: unknown, name: string): unknown =>
  typeof value === 'object' && value !== null ? (value as Record<string, unknown>)[name] : undefined;

/** Segments rules name that are neither built in nor among the app's rule segments (`segments put`). */
async function unknownSegments(
  appId: string,
  rulesAt: { rules: unknown; path: (string | number)[] }[],
): Promise<FileProblem[]> {
  const known = new Set<string>([...BUILT_IN_SEGMENTS, ...(await getSegments(appId)).map((segment) => segment.id)]);
  return rulesAt.flatMap(({ rules, path }) =>
    asArray(rules).flatMap((rule, at) => {
      const segment = field(field(rule, 'audience'), 'segment');
      return typeof segment === 'string' && !known.has(segment)
        ? [{ path: [...path, at, 'audience', 'segment'], message: `segment ${segment} is not defined for ${appId}` }]
        : [];
    }),
  );
}

/** Products packages name that the catalogue lacks, or that it does not sell on that platform. */
function unsellableProducts(appId: string, raw: unknown, products: Product[]): FileProblem[] {
  const catalogue = new Map(products.map((product) => [product.id, product]));
  return asArray(field(raw, 'offerings')).flatMap((offering, o) =>
    asArray(field(offering, 'packages')).flatMap((entry, p) =>
      Object.entries((field(entry, 'products') as Record<string, unknown> | undefined) ?? {}).flatMap(
        ([platform, id]): FileProblem[] => {
          if (typeof id !== 'string') return [];
          const path = ['offerings', o, 'packages', p, 'products', platform];
          const product = catalogue.get(id);
          if (!product) return [{ path, message: `product ${id} is not in the catalogue of ${appId}` }];
          if (!(product.platforms as string[]).includes(platform))
            return [
              {
                path,
                message: `product ${id} is not sold on ${platform} (its platforms: ${product.platforms.join(', ')})`,
              },
            ];
          return [];
        },
      ),
    ),
  );
}

/** Paywalls offerings name, and guide pages placements name, that were never uploaded. */
async function unknownPaywalls(appId: string, raw: unknown): Promise<FileProblem[]> {
  const uploaded = new Set((await readPaywalls(appId)).paywalls.map((paywall) => paywall.id));
  const unknown = (id: unknown, path: (string | number)[]): FileProblem[] =>
    typeof id === 'string' && !uploaded.has(id)
      ? [
          {
            path,
            message: `paywall ${id} is not uploaded for ${appId} (admin paywalls upload --app ${appId} --id ${id} --file F)`,
          },
        ]
      : [];
  return [
    ...asArray(field(raw, 'offerings')).flatMap((offering, o) =>
      unknown(field(offering, 'paywall'), ['offerings', o, 'paywall']),
    ),
    ...asArray(field(raw, 'placements')).flatMap((placement, p) => [
      ...unknown(field(field(placement, 'guide_page'), 'id'), ['placements', p, 'guide_page', 'id']),
      ...asArray(field(placement, 'rules')).flatMap((rule, r) =>
        unknown(field(field(rule, 'guide_page'), 'id'), ['placements', p, 'rules', r, 'guide_page', 'id']),
      ),
    ]),
  ];
}

export const catalogueCommands: CommandTable = {
  'products put': {
    usage: 'products put --app A --file F   (F: JSON array of Product objects)',
    options: { app: { type: 'string' }, file: { type: 'string' } },
    async run(values) {
      const appId = await requireApp(values);
      const products = await readValidatedFile(required(values, 'file'), productCatalogueSchema, 'product list');
      await putProducts(appId, products);
      // What paywalls show of these products (their name, price) follows the catalogue.
      await refreshOfferedProducts(appId, await listProducts(appId));
      return {
        json: { app_id: appId, products: products.map((p) => p.id) },
        text: `Stored ${products.length} product(s) for ${appId}: ${products.map((p) => p.id).join(', ')}`,
      };
    },
  },
  'entitlements put': {
    usage:
      "entitlements put --app A --file F   (F: JSON array of {id, name, products}; replaces the app's entitlements)",
    options: { app: { type: 'string' }, file: { type: 'string' } },
    async run(values) {
      const appId = await requireApp(values);
      const entitlements = await readValidatedFile(
        required(values, 'file'),
        entitlementCatalogueSchema,
        'entitlement list',
        (raw) => unknownProducts(appId, raw),
      );
      await putEntitlements(appId, entitlements);
      const ids = entitlements.map((entitlement) => entitlement.id);
      return {
        json: { app_id: appId, entitlements: ids },
        text: `Stored ${ids.length} entitlement(s) for ${appId}: ${ids.join(', ')}`,
      };
    },
  },
  'segments put': {
    usage: "segments put --app A --file F   (F: JSON array of segments; replaces the app's rule segments)",
    options: { app: { type: 'string' }, file: { type: 'string' } },
    async run(values) {
      const appId = await requireApp(values);
      const segments = await readValidatedFile(required(values, 'file'), segmentCatalogueSchema, 'segment list');
      await putSegments(appId, segments);
      return {
        json: { app_id: appId, segments: segments.map((s) => s.id) },
        text: `Stored ${segments.length} segment(s) for ${appId}: ${segments.map((s) => s.id).join(', ') || '(none)'}`,
      };
    },
  },
  'offerings put': {
    usage:
      "offerings put --app A --file F   (F: {current, offerings: [{id, packages: [{id, products: {ios, android, web}}]}], placements}; replaces the app's offerings and placements)",
    options: { app: { type: 'string' }, file: { type: 'string' } },
    async run(values) {
      const appId = await requireApp(values);
      const catalogue = await listProducts(appId);
      const document = await readValidatedFile(
        required(values, 'file'),
        offeringsDocumentSchema,
        'offerings file',
        async (raw) => [
          ...tooLarge(raw, 'offerings'),
          ...unsellableProducts(appId, raw, catalogue),
          ...(await unknownPaywalls(appId, raw)),
          ...(await unknownSegments(
            appId,
            asArray(field(raw, 'placements')).map((placement, at) => ({
              rules: field(placement, 'rules'),
              path: ['placements', at, 'rules'],
            })),
          )),
        ],
      );
      await putOfferings(appId, document, catalogue);
      const offerings = document.offerings.map((offering) => offering.id);
      const placements = document.placements.map((placement) => placement.id);
      return {
        json: { app_id: appId, current: document.current, offerings, placements },
        text: `Stored ${offerings.length} offering(s) for ${appId} (current: ${document.current}): ${offerings.join(', ')}; ${placements.length} placement(s)${placements.length > 0 ? `: ${placements.join(', ')}` : ''}`,
      };
    },
  },
  'switches put': {
    usage:
      "switches put --app A --file F   (F: JSON array of {key, type, value, rules}; replaces the app's remote switches)",
    options: { app: { type: 'string' }, file: { type: 'string' } },
    async run(values) {
      const appId = await requireApp(values);
      const switches = await readValidatedFile(
        required(values, 'file'),
        remoteSwitchesSchema,
        'switch list',
        async (raw) => [
          ...tooLarge(raw, 'switches'),
          ...(await unknownSegments(
            appId,
            asArray(raw).map((entry, at) => ({ rules: field(entry, 'rules'), path: [at, 'rules'] })),
          )),
        ],
      );
      await putRemoteSwitches(appId, switches);
      const keys = switches.map((entry) => entry.key);
      return {
        json: { app_id: appId, switches: keys },
        text: `Stored ${keys.length} switch(es) for ${appId}: ${keys.join(', ') || '(none)'}`,
      };
    },
  },
  'ads put': {
    usage:
      'ads put --app A --file F   (F: {"ios": {"networks": [...]}, "android": {...}}; public: any sdk key holder reads them)',
    options: { app: { type: 'string' }, file: { type: 'string' } },
    async run(values) {
      const appId = await requireApp(values);
      const config = await readValidatedFile(required(values, 'file'), adsConfigSchema, 'ad configuration');
      await putAdsConfig(appId, config);
      const count = (config.ios?.networks.length ?? 0) + (config.android?.networks.length ?? 0);
      return {
        json: { app_id: appId, platforms: Object.keys(config), networks: count },
        text: `Stored the ad configuration of ${appId} (${count} network entries).`,
      };
    },
  },
  'fx put': {
    usage: 'fx put --file F   (F: JSON array of {"date":"YYYY-MM-DD","from":"EUR","to":"USD","rate":1.08})',
    options: { file: { type: 'string' } },
    async run(values) {
      const rates = await readValidatedFile(required(values, 'file'), exchangeRatesSchema, 'list of exchange rates');
      await putExchangeRates(rates);
      return { json: { rates: rates.length }, text: `Stored ${rates.length} exchange rate(s).` };
    },
  },
};
