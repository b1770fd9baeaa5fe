import { expect, test } from 'bun:test';
import { PING_BYTES } from '../../src/stream/encoder';
import { startKeepAlive } from '../../src/stream/keep-alive';

test('one shared ticker pings only the streams that stayed silent, and not after stop', async () => {
  const pings = { silent: 0, busy: 0, stopped: 0 };
  const silent = startKeepAlive(40, (b) => void (b === PING_BYTES && pings.silent++));
  const busy = startKeepAlive(40, (b) => void (b === PING_BYTES && pings.busy++));
  const stopped = startKeepAlive(40, (b) => void (b === PING_BYTES && pings.stopped++));
  stopped.stop();
  const touching = setInterval(() => busy.touch(), 2);
  await Bun.sleep(300);
  clearInterval(touching);
  silent.stop();
  busy.stop();
  const atStop = pings.silent;
  await Bun.sleep(100);
  // About one ping per interval after the first (at most 2 intervals after the last write).
  expect(pings.silent).toBeGreaterThanOrEqual(3);
  expect(pings.silent).toBe(atStop);
  expect(pings.busy).toBe(0);
  expect(pings.stopped).toBe(0);
});
