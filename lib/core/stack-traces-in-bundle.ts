/** Injected into every function bundle by esbuild (cdk/constructs/service-function.ts): in a bundle, import.meta.url is the bundle's. */
import { mapStackTraces } from './stack-traces.js';

mapStackTraces(import.meta.url);
