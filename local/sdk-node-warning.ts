/**
 * Imported first by the local entry points (npm start, the CLIs, the test setup, the benchmarks). The AWS SDK warns
 * once per process on Node < 22 that its releases after January 2027 will need Node 22; here Node 20
 * is supported (package.json engines) and the SDK version is pinned by the lockfile, so the warning
 * says nothing a developer can act on, on every start and CLI call. Lambda runs Node 24, where it
 * never applies. The SDK's own switch is set, only on Node < 22 and only when nobody set it.
 */
if (Number(process.versions.node.split('.')[0]) < 22) process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

export {};
