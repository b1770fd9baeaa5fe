// Loaded before every test file (bunfig.toml). Keeps test output quiet and uncoupled from
// whatever svc.config.yaml a developer has lying around.
process.env.SVC_CONFIG = '';
process.env.SVC_LOG_LEVEL ??= 'silent';
