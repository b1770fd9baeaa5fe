import type { Config } from '../config';
import type { Storage } from '../db/database';
import type { Logger } from '../log';
import { loadSeed, readSeedFile } from './seed';
import { characterStore, type CharacterStore } from './store';

export type { CharacterRecord, ReviewRecord, CharacterStore } from './store';

/** A character store whose seed has been loaded (or is being loaded). */
export interface Characters {
  store: CharacterStore;
  /** Resolves once the seed file is in the database; queries await it. */
  ready: Promise<void>;
}

/** What the character store needs from the app: the seed file's path, the database and the log. */
export interface CharactersDeps {
  config: Pick<Config, 'charactersFile'>;
  storage: Pick<Storage, 'db'>;
  log: Logger;
}

const byDeps = new WeakMap<CharactersDeps, Characters>();

/**
 * The characters of an app: one store per deps, seeded once from `config.charactersFile`.
 * The file is read and validated synchronously here, so a broken seed fails createApp;
 * the inserts run in the background and every query awaits `ready`.
 */
export function charactersOf(deps: CharactersDeps): Characters {
  let found = byDeps.get(deps);
  if (found) return found;
  const seed = readSeedFile(deps.config.charactersFile);
  const store = characterStore(deps.storage.db);
  const ready = seed
    ? loadSeed(deps.storage.db, seed).then(
        (n) => deps.log.info('characters: seed loaded', n),
        (error) => {
          deps.log.error('characters: seed failed', { error: String(error) });
          throw error;
        },
      )
    : Promise.resolve();
  // Nobody may be waiting yet; the failure is logged above and surfaces on the first query.
  ready.catch(() => {});
  found = { store, ready };
  byDeps.set(deps, found);
  return found;
}
