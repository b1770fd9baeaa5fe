import { existsSync } from 'node:fs';
import { createApp } from './app';
import { bootstrapAdmin } from './auth/bootstrap';
import { closeDeps, createDeps } from './boot';
import { ConfigError, loadConfig } from './config';
import { checkConfigSections } from './config-sections';
import { openStorage } from './db/open';
import { DataDirLockedError, lockDataDir } from './lifecycle/data-lock';
import { startProgress } from './lifecycle/progress';
import { loadTokenizer } from './tokenizer/count';
import { shutDown } from './lifecycle/shutdown';
import { startIdleCollector } from './lifecycle/idle-collect';
import { serveOptions } from './http/serve-options';
import { preparePlugins } from './plugin-host';
import { PLUGINS } from '../plugins';

/** The port is taken (by another svc or anything else) and port sharing was not asked for. */
class PortInUseError extends Error {
  constructor(host: string, port: number) {
    super(
      `${host}:${port} is already in use (another svc?). Stop it, pick another PORT, or set SVC_REUSE_PORT=true ` +
        'to share the port on purpose (the kernel then splits connections between the processes)',
    );
  }
}

async function main() {
  const config = loadConfig(process.env, checkConfigSections);
  const pluginPackages = await preparePlugins(config, PLUGINS, process.env.SVC_CONFIG ?? './svc.config.yaml');
  const embedded = !config.databaseUrl;
  const lock = embedded ? lockDataDir(config.dataDir) : null;
  const progress = startProgress();
  if (embedded && !existsSync(`${config.dataDir}/pglite/PG_VERSION`))
    process.stderr.write(`svc: first start: creating the embedded database in ${config.dataDir}/pglite (takes a few seconds)\n`);
  const storage = await openStorage(config, progress.step);
  progress.step('loading models, limits and billing');
  const deps = await createDeps(config, { storage });
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

main().catch((error) => {
  if (error instanceof ConfigError) {
    process.stderr.write(`svc: configuration error: ${error.message}\n`);
    process.exit(2);
  }
  if (error instanceof PortInUseError) {
    process.stderr.write(`svc: cannot start: ${error.message}\n`);
    process.exit(2);
  }
  if (error instanceof DataDirLockedError) {
    process.stderr.write(`svc: cannot start: ${error.message}. Stop it first, or give this instance its own SVC_DATA_DIR.\n`);
    process.exit(2);
  }
  process.stderr.write(`svc: failed to start: ${error?.stack ?? error}\n`);
  process.exit(1);
});
