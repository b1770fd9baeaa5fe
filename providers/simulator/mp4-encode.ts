/** The encoder's module, loaded with the first simulated video (its WASM is ~1 MB). */
let encoderModule: Promise<typeof import('h264-mp4-encoder')> | null = null;

/** What to draw: the frame size (even numbers), the frame rate and the seconds. */
export interface ClipSpec {
  width: number;
  height: number;
  fps: number;
  seconds: number;
  seed: number;
}

/**
 * A real H.264 MP4 of moving colour bands and a progress bar, encoded by h264-mp4-encoder
 * (minih264 and an MP4 muxer compiled to WebAssembly, so it installs from npm with no binary
 * download). Synchronous WASM: run it in mp4-worker.ts, never on the server's thread.
 */
export async function encodeClip(spec: ClipSpec): Promise<Uint8Array<ArrayBuffer>> {
  encoderModule ??= import('h264-mp4-encoder');
  const encoder = await (await encoderModule).createH264MP4Encoder();
  try {
    encoder.width = spec.width;
    encoder.height = spec.height;
    encoder.frameRate = spec.fps;
    encoder.quantizationParameter = 33;
    encoder.initialize();
    const frames = Math.max(1, Math.round(spec.seconds * spec.fps));
    const pixels = new Uint8Array(spec.width * spec.height * 4);
    for (let f = 0; f < frames; f++) {
      const bar = Math.round(((f + 1) / frames) * spec.width);
      for (let y = 0; y < spec.height; y++)
        for (let x = 0; x < spec.width; x++) {
          const i = (y * spec.width + x) * 4;
          const inBar = y > spec.height - 12 && x < bar;
          pixels[i] = inBar ? 255 : (x * 2 + f * 6 + spec.seed) & 255;
          pixels[i + 1] = inBar ? 255 : (y * 3 + f * 2) & 255;
          pixels[i + 2] = inBar ? 255 : (128 + ((x + y + f * 4) >> 2)) & 255;
          pixels[i + 3] = 255;
        }
      encoder.addFrameRgba(pixels);
    }
    encoder.finalize();
    return new Uint8Array(encoder.FS.readFile(encoder.outputFilename));
  } finally {
    encoder.delete();
  }
}
