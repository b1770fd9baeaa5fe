import type sharp from 'sharp';
import { lazyModule } from '../lifecycle/lazy-module';

/** sharp's entry point (its default export), as `loadSharp` resolves it. */
export type SharpModule = typeof sharp;

/** sharp (libvips), loaded by the first image request: ~28 MB of RSS a process without image traffic does not hold. */
export const loadSharp = lazyModule<SharpModule>(async () => (await import('sharp')).default);
