/** Prints start-up steps on stderr (kept apart from the JSON log on stdout), each with its duration. */
export interface StartProgress {
  /** Ends the current step (printing its time) and begins `step`. */
  step(step: string): void;
  /** Ends the current step. */
  done(): void;
}

// A step still running after this long gets a line saying so, so a slow first start never looks hung.
const STILL_WORKING_MS = 3_000;

/** Start-up progress written with `write` (stderr by default). */
export function startProgress(write: (text: string) => void = (t) => process.stderr.write(t)): StartProgress {
  let current: { name: string; at: number; timer: ReturnType<typeof setInterval> } | null = null;
  const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
  function end() {
    if (!current) return;
    clearInterval(current.timer);
    write(`svc:   ${current.name}: done in ${seconds(performance.now() - current.at)}\n`);
    current = null;
  }
  return {
    step(name) {
      end();
      write(`svc: ${name}...\n`);
      const at = performance.now();
      const timer = setInterval(() => write(`svc:   ${name}: still working (${seconds(performance.now() - at)})\n`), STILL_WORKING_MS);
      timer.unref?.();
      current = { name, at, timer };
    },
    done: end,
  };
}
