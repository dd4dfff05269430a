/**
 * node:http as the function bundles import it (esbuild aliases `http` and `node:http` here:
 * cdk/constructs/service-function.ts), loaded with require() rather than by an ESM import.
 *
 * Why: an ESM import of a builtin builds a module namespace from all of its exports, and three of
 * node:http's (WebSocket, CloseEvent, MessageEvent) are getters that load undici, Node's fetch and
 * WebSocket client. That costs about 60 ms of CPU at every cold start of every function (the AWS SDK
 * imports node:http statically for its instance-metadata credentials), while require() reads no
 * getter: about 6 ms (nodejs/node#59686, aws/aws-sdk-js-v3#6914; docs/decisions/bundling.md).
 *
 * The exports are node:http's own, all but those getters and the live `globalAgent` and
 * `maxHeaderSize` accessors; an import of any other name fails the build.
 */
import { createRequire } from 'node:module';

const http: typeof import('node:http') = createRequire(import.meta.url)('node:http');

export default http;
export const {
  METHODS,
  STATUS_CODES,
  Agent,
  ClientRequest,
  IncomingMessage,
  OutgoingMessage,
  Server,
  ServerResponse,
  createServer,
  validateHeaderName,
  validateHeaderValue,
  get,
  request,
  setMaxIdleHTTPParsers,
} = http;
