/** `bun src/db/first-start-child.ts <dataDir>`: creates and migrates PGlite in `dataDir` (see first-start.ts). */
import { openPglite } from './open';

const storage = await openPglite({ dataDir: process.argv[2] });
await storage.close();
