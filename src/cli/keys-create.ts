import { main } from './admin';

/**
 * `npm run keys:create -- --type ADMIN|INFERENCE`: the same as `npm run admin -- keys create`
 * (through the running server's API with an ADMIN key, or directly when no server holds
 * the database).
 */
main(['keys', 'create', ...process.argv.slice(2)]);
