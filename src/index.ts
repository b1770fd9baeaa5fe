import { createApp } from './app';
import { bootstrapAdminKey } from './auth/bootstrap';
import { closeDeps, createDeps } from './boot';
import { ConfigError, loadConfig } from './config';

async function main() {
  const config = loadConfig();
  const deps = await createDeps(config);
  const secret = await bootstrapAdminKey(deps.storage.db, config.bootstrapCreditUsd);
  if (secret) {
    process.stdout.write(
      `\n  First start: created an ADMIN API key (shown once, store it now):\n\n    ${secret}\n\n` +
        `  The bootstrap account holds ${config.bootstrapCreditUsd} USD of credit.\n\n`,
    );
  }
  const app = createApp(deps);
  // Streams stay open for minutes; keep-alive pings every 15 s keep them under this timeout.
  app.listen({ port: config.port, hostname: config.host, idleTimeout: 60, maxRequestBodySize: config.maxBodyBytes });
  const port = app.server?.port ?? config.port;
  const backends = `${deps.storage.backend}+${deps.kv.backend}`;
  // Bun reads this only from the environment it starts with (npm start sets it); assigning it now would do nothing.
  if (!process.env.BUN_CONFIG_MAX_HTTP_REQUESTS)
    deps.log.warn('BUN_CONFIG_MAX_HTTP_REQUESTS is not set: at most 256 upstream calls run at once (npm start sets 65535)');
  deps.log.info('svc listening', { url: `http://localhost:${port}${config.basePath}`, backends, models: deps.models.list().length });
  const stop = async () => {
    await app.stop();
    await closeDeps(deps);
    process.exit(0);
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

main().catch((error) => {
  if (error instanceof ConfigError) {
    process.stderr.write(`svc: configuration error: ${error.message}\n`);
    process.exit(2);
  }
  process.stderr.write(`svc: failed to start: ${error?.stack ?? error}\n`);
  process.exit(1);
});
