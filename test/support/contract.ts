/**
 * Checks answers of the local gateway against the OpenAPI document as committed, docs/openapi.json
 * (test/unit/openapi.test.ts holds it to what openapi/document.ts builds): the operation is found
 * by method and path as the gateway routes them, and its documented responses must include the
 * status, every required header it names (and each named header that is present must match its
 * schema) and a body matching the schema. A path that is no endpoint's must be a 404
 * ROUTE_NOT_FOUND, a method the path does not serve a 405 METHOD_NOT_ALLOWED with Allow, each in
 * its API's error envelope. The SDK dialects, which the document leaves out, are held to those
 * SDKs' rules (test/support/dingyue-envelope.ts, test/support/revenuecat-decoders.ts).
 */
import { readFileSync } from 'node:fs';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { toJSONSchema } from 'zod/v4/core';
import { isDingYuePath } from '../../lib/http/dingyue.js';
import { ROUTES, type Route } from '../../lib/routes.js';
import { mobileErrorSchema, subscriptionsErrorSchema } from '../../lib/schemas/responses.js';
import { apiOfPath, compileRoutes, requestUrl, resolveRoute } from '../../local/gateway.js';
import { DOCUMENT_PATH, type OpenApiDocument } from '../../openapi/document.js';
import { dingyueAnswerProblems } from './dingyue-envelope.js';
import { revenuecatAnswerProblems } from './revenuecat-decoders.js';

type Json = Record<string, any>;

const DOCUMENT_ID = 'https://contract.test/openapi.json';
// Read, not built: building it loads every handler module, in every test file that checks answers.
const document = JSON.parse(readFileSync(DOCUMENT_PATH, 'utf8')) as OpenApiDocument;
const compiled = compileRoutes(ROUTES);

// ajv-formats is CommonJS: its default export arrives wrapped under ESM.
const addFormats = ((addFormatsModule as any).default ?? addFormatsModule) as typeof import('ajv-formats').default;
const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats(ajv);
// Schemas refer to '#/components/...' of the document: they are compiled against it.
ajv.addSchema({ $id: DOCUMENT_ID, components: document.components });

const rebase = (value: unknown): unknown => {
  if (Array.isArray(value)) return value.map(rebase);
  if (value && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value).map(([k, v]) => [
        k,
        k === '$ref' && typeof v === 'string' && v.startsWith('#/') ? `${DOCUMENT_ID}${v}` : rebase(v),
      ]),
    );
  }
  return value;
};

const validators = new Map<unknown, ValidateFunction>();
function validatorOf(schema: unknown): ValidateFunction {
  let validate = validators.get(schema);
  if (!validate) {
    validate = ajv.compile(rebase(schema) as Json);
    validators.set(schema, validate);
  }
  return validate;
}

const resolve = (object: Json): Json => {
  if (typeof object.$ref !== 'string') return object;
  const [, kind, name] = /^#\/components\/(\w+)\/(.+)$/.exec(object.$ref)!;
  return (document.components as Json)[kind!][name!];
};

const subscriptionsEnvelope = toJSONSchema(subscriptionsErrorSchema, { target: 'draft-2020-12', io: 'output' });
/** RevenueCat's error envelope (lib/http/envelopes.ts; the SDKs' rules: test/support/revenuecat-decoders.ts). */
const revenuecatEnvelope = {
  type: 'object',
  required: ['code', 'message', 'error'],
  additionalProperties: false,
  properties: {
    code: { type: 'integer', minimum: 1 },
    message: { type: 'string', minLength: 1 },
    error: { type: 'string' },
    // Attributes not kept, as both SDKs decode them (iOS ErrorResponse.swift, Android backendHelpers.kt).
    attribute_errors: {
      type: 'array',
      minItems: 1,
      items: {
        type: 'object',
        required: ['key_name', 'message'],
        additionalProperties: false,
        properties: { key_name: { type: 'string' }, message: { type: 'string', minLength: 1 } },
      },
    },
    request_id: { type: 'string' },
  },
};
const ENVELOPES = {
  subscriptions: subscriptionsEnvelope,
  notifications: subscriptionsEnvelope,
  mobile: toJSONSchema(mobileErrorSchema, { target: 'draft-2020-12', io: 'output' }),
  revenuecat: revenuecatEnvelope,
};

export interface Answer {
  status: number;
  /** Header value by lower-case name, undefined when absent. */
  header: (name: string) => string | undefined;
  text: string;
}

function bodyProblems(schema: unknown, text: string): string[] {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return [`body is not JSON: ${text.slice(0, 200)}`];
  }
  const validate = validatorOf(schema);
  if (validate(body)) return [];
  return (validate.errors ?? []).map((e) => `body${e.instancePath} ${e.message} ${JSON.stringify(e.params)}`);
}

function gatewayAnswerProblems(method: string, path: string, answer: Answer): string[] | undefined {
  const resolved = resolveRoute(compiled, method, path);
  if (resolved && 'route' in resolved) return undefined;
  // The CORS preflight of a subscription API or RevenueCat resource: API Gateway's own answer, no body (test/e2e/cors.test.ts).
  if (method === 'OPTIONS' && (resolved?.api === 'subscriptions' || resolved?.api === 'revenuecat')) {
    const problems: string[] = [];
    if (answer.status !== 204) problems.push(`status ${answer.status}, expected 204 (CORS preflight)`);
    if (answer.text !== '') problems.push('a body in a CORS preflight answer');
    return problems;
  }
  const api = resolved ? resolved.api : apiOfPath(path);
  const [status, code] = resolved ? [405, 'METHOD_NOT_ALLOWED'] : [404, 'ROUTE_NOT_FOUND'];
  const problems = bodyProblems(ENVELOPES[api], answer.text);
  if (problems.length === 0) {
    const body = JSON.parse(answer.text) as Json;
    const answered = api === 'revenuecat' ? body.error : (body.error?.code ?? body.code);
    if (answered !== code) problems.push(`code is not ${code}`);
  }
  if (answer.status !== status) problems.push(`status ${answer.status}, expected ${status} ${code}`);
  if (resolved && answer.header('allow') !== resolved.allow.join(', ')) problems.push('Allow header is wrong');
  return problems;
}

/** What in the answer to METHOD PATH the document does not describe (empty: all of it matches). */
export function contractProblems(method: string, rawPath: string, answer: Answer): string[] {
  const path = requestUrl(rawPath).pathname;
  const verb = method.toUpperCase();
  const unrouted = gatewayAnswerProblems(verb, path, answer);
  if (unrouted) return unrouted;
  const route = (resolveRoute(compiled, verb, path) as { route: Route }).route;
  // RevenueCat's SDK calls are held to what those SDKs decode, which the document does not describe.
  if (route.api === 'revenuecat') {
    return revenuecatAnswerProblems(answer.status, answer.header('content-type'), answer.text).map(
      (p) => `${route.name} ${answer.status}: ${p}`,
    );
  }
  // The DingYue SDK's calls answer in that SDK's envelope, which the document does not describe.
  if (isDingYuePath(route.path)) {
    const contentType = answer.header('content-type') ?? '';
    return [
      ...(contentType.startsWith('application/json') ? [] : [`content-type ${contentType}`]),
      ...dingyueAnswerProblems(route.name, answer.status, answer.text),
    ].map((p) => `${route.name} ${answer.status}: ${p}`);
  }
  const operation = document.paths[route.path]![verb.toLowerCase()] as Json;
  const documented = operation.responses[String(answer.status)] as Json | undefined;
  if (!documented) return [`status ${answer.status} is not documented for ${operation.operationId}`];
  const response = resolve(documented);
  const problems: string[] = [];
  for (const [name, ref] of Object.entries((response.headers ?? {}) as Record<string, Json>)) {
    const spec = resolve(ref);
    const value = answer.header(name.toLowerCase());
    if (value === undefined) {
      if (spec.required) problems.push(`header ${name} is missing`);
    } else if (!validatorOf(spec.schema)(value)) problems.push(`header ${name}: ${value} does not match its schema`);
  }
  if (!response.content) {
    // A documented answer without content (304 Not Modified): no body, no type.
    if (answer.text !== '') problems.push('a body where the document says none');
    if (answer.header('content-type') !== undefined) problems.push('a content-type where the document says no body');
    return problems.map((p) => `${operation.operationId} ${answer.status}: ${p}`);
  }
  const contentType = answer.header('content-type') ?? '';
  if (!contentType.startsWith('application/json')) problems.push(`content-type ${contentType}`);
  if (verb !== 'HEAD') problems.push(...bodyProblems(response.content['application/json'].schema, answer.text));
  return problems.map((p) => `${operation.operationId} ${answer.status}: ${p}`);
}

/** Throws when the answer is not what the document says. */
export function assertContract(method: string, path: string, answer: Answer): void {
  const problems = contractProblems(method, path, answer);
  if (problems.length > 0) {
    throw new Error(
      `the answer to ${method} ${path} does not match docs/openapi.json:\n${problems.join('\n')}\n` +
        `answer ${answer.status}: ${answer.text.slice(0, 500)}`,
    );
  }
}

/** fetch, with the answer checked against the document. */
export async function contractFetch(url: string | URL, init: RequestInit = {}): Promise<Response> {
  const response = await fetch(url, init);
  const text = await response.clone().text();
  const { pathname } = new URL(url);
  assertContract(init.method ?? 'GET', pathname, {
    status: response.status,
    header: (name) => response.headers.get(name) ?? undefined,
    text,
  });
  return response;
}
