import { lazyModule } from '../lifecycle/lazy-module';

/** music-metadata, loaded by the first upload that needs reading (a process without audio traffic never holds it). */
export const loadMusicMetadata = lazyModule(() => import('music-metadata'));
