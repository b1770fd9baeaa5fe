import { expect, test } from 'bun:test';
import { CURRENCIES } from '../../src/billing/mirror-init';
import { SettledIds } from '../../src/billing/settled-ids';
import { nextRequestId, requestIdKey } from '../../src/http/request-ids';

test('settled ids keep their exact charge for at least the window and are dropped after two', () => {
  let now = 1_000_000;
  const ids = new SettledIds(() => now);
  const big = 2 ** 49 + 7; // micro-units near the packing limit stay exact
  CURRENCIES.forEach((currency, i) => ids.set(`r${i}`, { currency, amount: i === 0 ? big : i * 1_000 }, 60_000));
  CURRENCIES.forEach((currency, i) => expect(ids.get(`r${i}`)).toEqual({ currency, amount: i === 0 ? big : i * 1_000 }));
  expect(ids.get('unknown')).toBeNull();

  now += 59_999;
  ids.set('late', { currency: 'USD', amount: 0 }, 60_000);
  now += 2; // the first generation turns over on the next set
  ids.set('next', { currency: 'DIEM', amount: 5 }, 60_000);
  expect(ids.get('r0')).toEqual({ currency: 'USD', amount: big }); // 60,001 ms old: still remembered
  expect(ids.get('late')).toEqual({ currency: 'USD', amount: 0 });

  now += 60_000;
  ids.set('later', { currency: 'USD', amount: 1 }, 60_000);
  expect(ids.get('r0')).toBeNull(); // two windows old
  expect(ids.get('next')).toEqual({ currency: 'DIEM', amount: 5 });

  now += 200_000; // a quiet gap longer than two windows forgets everything
  ids.set('after-gap', { currency: 'USD', amount: 2 }, 60_000);
  expect(ids.get('next')).toBeNull();
  expect(ids.get('later')).toBeNull();
  expect(ids.get('after-gap')).toEqual({ currency: 'USD', amount: 2 });
});

test("svc's own request ids and any other id are remembered apart, each with its own charge", () => {
  const ids = new SettledIds(() => 0);
  const own = nextRequestId();
  const next = nextRequestId();
  // The same characters with one changed, a foreign id of the same length, and a non-hex counter.
  const foreign = ['x' + own.slice(1), own.slice(0, 10) + 'zzzzzzzz-SVC', own.replace('-SVC', '-CF1')];
  ids.set(own, { currency: 'USD', amount: 7 }, 60_000);
  for (const id of foreign) expect(ids.get(id)).toBeNull();
  expect(ids.get(next)).toBeNull();
  foreign.forEach((id, i) => ids.set(id, { currency: 'DIEM', amount: i + 1 }, 60_000));
  expect(ids.get(own)).toEqual({ currency: 'USD', amount: 7 });
  foreign.forEach((id, i) => expect(ids.get(id)).toEqual({ currency: 'DIEM', amount: i + 1 }));
  // A copy of the id string (as a retried settlement would carry) finds the same charge.
  expect(ids.get(`${own.slice(0, 5)}${own.slice(5)}`)).toEqual({ currency: 'USD', amount: 7 });
  expect(requestIdKey(own)).toBeTypeOf('number');
  expect(requestIdKey(foreign[1]!)).toBe(foreign[1]!);
});
