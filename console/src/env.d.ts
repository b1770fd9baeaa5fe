// Stylesheets are bundled by Bun.build (console/build.ts); importing one gives nothing to use.
declare module '*.css';
