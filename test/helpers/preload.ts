// Loaded before every test file (bunfig.toml). Keeps test output quiet and uncoupled from
// whatever svc.config.yaml a developer has lying around.
process.env.SVC_CONFIG = '';
process.env.SVC_LOG_LEVEL ??= 'silent';

// Migrate the shared PGlite template once, before any test file: a cold migration can take
// longer than bun's 5 s hook timeout, which would fail whichever suite happened to boot first.
import { warmBackends } from './backends';
await warmBackends();
