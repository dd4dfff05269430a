// Stylesheets are imported for their side effect: esbuild bundles them beside the script (console/build.ts).
declare module '*.css';
