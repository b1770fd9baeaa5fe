import { existsSync } from 'node:fs';
import { loadConfig, type Config } from './config';
import { checkConfigSections } from './config-sections';
import { checkSecrets } from './config-secrets';
import { lockDataDir } from './lifecycle/data-lock';
import { startProgress } from './lifecycle/progress';
import { shutDown } from './lifecycle/shutdown';
import { startIdleCollector } from './lifecycle/idle-collect';
import { serveOptions } from './http/serve-options';
import { assertPortFree, describeStartupFailure, failedOn, PortInUseError } from './lifecycle/startup-failure';

async function main() {
  const config = loadConfig(process.env, checkConfigSections);
  started = config;
  const weakSecretsWarning = checkSecrets(config);
  if (weakSecretsWarning) process.stderr.write(`${weakSecretsWarning}\n`);
  assertPortFree(config);
  // Plugin packages load before anything is opened: one that cannot load, or whose options
  // are invalid, stops the start naming it (exit 2) with nothing created.
  const [{ preparePlugins }, { PLUGINS }] = await Promise.all([import('./plugin-host'), import('../plugins')]);
  const pluginPackages = await preparePlugins(config, PLUGINS, process.env.SVC_CONFIG ?? './svc.config.yaml');
  // The server's modules load only now: a configuration error is told before ~1 s of imports.
  const [
    { createApp },
    { bootstrapAdmin, bootstrapKeyLive },
    { closeDeps, createDeps },
    { openStorage },
    { loadTokenizer },
    { openKeyValueStore },
  ] = await Promise.all([
    import('./app'),
    import('./auth/bootstrap'),
    import('./boot'),
    import('./db/open'),
    import('./tokenizer/count'),
    import('./kv/redis'),
  ]);
  const embedded = !config.databaseUrl;
  const lock = embedded ? lockDataDir(config.dataDir) : null;
  const progress = startProgress();
  // Redis first: a start that cannot reach it should not create the embedded database first.
  if (config.redisUrl) progress.step('connecting to Redis');
  const kv = await openKeyValueStore(config).catch(failedOn('redis'));
  if (embedded && !existsSync(`${config.dataDir}/pglite/PG_VERSION`))
    process.stderr.write(`svc: first start: creating the embedded database in ${config.dataDir}/pglite (takes a few seconds)\n`);
  const storage = await openStorage(config, progress.step).catch(failedOn('postgres'));
  progress.step('loading models, limits and billing');
  const deps = await createDeps(config, { storage, kv });
  // The tokenizer's rank table (prompt estimates) is read now, not on the first request.
  loadTokenizer();
  const bootstrap = await bootstrapAdmin(deps.storage.db, config.bootstrapCreditUsd);
  progress.done();
  // Start-up leaves garbage that an idle process never collects: opening PGlite leaves
  // ~130 MB of ArrayBuffers (its first start, now in a child, left ~350 MB).
  Bun.gc(true);
  const app = createApp(deps, { chat: { packages: pluginPackages } });
  try {
    app.listen(serveOptions(config));
  } catch (error) {
    if ((error as { code?: string }).code === 'EADDRINUSE') throw new PortInUseError(config.host, config.port);
    throw error;
  }
  const port = app.server?.port ?? config.port;
  const url = `http://localhost:${port}${config.basePath}`;
  lock?.listening(`http://127.0.0.1:${port}${config.basePath}`);
  if (bootstrap) {
    // On stderr: a person reads it once; the JSON log on stdout goes to a collector.
    process.stderr.write(
      `\n  First start: created an ADMIN API key (shown once, store it now):\n\n    ${bootstrap.secret}\n\n` +
        `  Bootstrap account: ${bootstrap.accountId} (holds ${config.bootstrapCreditUsd} USD of credit)\n` +
        `  API: ${url}   docs: http://localhost:${port}/docs   console: http://localhost:${port}/console\n\n`,
    );
  }
  process.stderr.write(`svc: listening on ${listenBanner(config.host, port, config.basePath)}\n`);
  if (EVERY_INTERFACE.has(config.host) && (await bootstrapKeyLive(deps.storage.db).catch(() => false)))
    process.stderr.write(
      `svc: WARNING: listening on every interface (${config.host}) while the bootstrap ADMIN key is live, with ${config.bootstrapCreditUsd} USD ` +
        'of credit on its account: set HOST=127.0.0.1 to serve this machine only, or create your own keys and delete the bootstrap one\n',
    );
  // Bun reads this only from the environment it starts with (npm start sets it); assigning it now would do nothing.
  if (!process.env.BUN_CONFIG_MAX_HTTP_REQUESTS)
    deps.log.warn('BUN_CONFIG_MAX_HTTP_REQUESTS is not set: at most 256 upstream calls run at once (npm start sets 65535)');
  const idleCollector = startIdleCollector(config.idleCollectMb, function idleCollected(t) {
    deps.log.debug('idle collection', {
      rssBeforeMb: Math.round(t.rssBefore / 2 ** 20),
      floorMb: Math.round(t.floorBefore / 2 ** 20),
      tookMs: Math.round(t.tookMs),
    });
  });
  if (weakSecretsWarning) deps.log.warn(weakSecretsWarning.replace(/^svc: WARNING: /, ''));
  deps.log.info('svc listening', { url, backends: `${deps.storage.backend}+${deps.kv.backend}`, models: deps.models.list().length });

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) {
      deps.log.warn('shutdown: second signal, exiting now', { signal });
      process.exit(1);
    }
    stopping = true;
    idleCollector.stop();
    // A shutdown that hangs (a pool that never closes) must not keep an orchestrator waiting for ever.
    setTimeout(
      () => {
        deps.log.error('shutdown: did not finish in time, exiting');
        process.exit(1);
      },
      (config.shutdownDrainSeconds + config.shutdownGraceSeconds) * 1000 + 30_000,
    ).unref();
    try {
      await shutDown(
        {
          log: deps.log,
          graceMs: config.shutdownGraceSeconds * 1000,
          // A person at a terminal (Ctrl-C) has no load balancer to wait for.
          drainMs: signal === 'SIGTERM' ? config.shutdownDrainSeconds * 1000 : 0,
          stopListening: () => app.server?.stop(false),
          flushLedger: () => deps.meter.close(),
          closePools: () => closeDeps(deps),
        },
        signal,
      );
    } catch (error) {
      deps.log.error('shutdown: failed', { error: String(error) });
      process.exitCode = 1;
    } finally {
      lock?.release();
    }
    process.exit();
  };
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGTERM', () => void stop('SIGTERM'));
}

/** Addresses that listen on every interface. */
const EVERY_INTERFACE = new Set(['0.0.0.0', '::', '']);

/** Where svc listens, as a person reads it: every interface said so, with the local URL to open. */
function listenBanner(host: string, port: number, basePath: string): string {
  const url = `http://${EVERY_INTERFACE.has(host) ? 'localhost' : host.includes(':') ? `[${host}]` : host}:${port}${basePath}`;
  return EVERY_INTERFACE.has(host) ? `${host}:${port}, every interface (open ${url})` : url;
}

/** The configuration once read, so that a failure names the URLs it could not reach. */
let started: Config | undefined;

main().catch((error) => {
  const { line, exitCode } = describeStartupFailure(error, { databaseUrl: started?.databaseUrl, redisUrl: started?.redisUrl });
  process.stderr.write(`${line}\n`);
  process.exit(exitCode);
});
