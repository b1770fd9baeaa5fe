import { describe, expect, test } from 'bun:test';
import { Type as T } from '@sinclair/typebox';
import { overLongArray, type CappedSchema } from '../../src/http/array-caps';

const schema = T.Object({
  stop: T.Optional(T.Union([T.String(), T.Array(T.String(), { maxItems: 4 }), T.Null()])),
  free: T.Optional(T.Array(T.Number())),
  nested: T.Optional(T.Array(T.Object({ urls: T.Array(T.String(), { maxItems: 2 }) }), { maxItems: 3 })),
  either: T.Optional(T.Union([T.Array(T.Number(), { maxItems: 2 }), T.Array(T.String(), { maxItems: 5 })])),
  uncappedAlternative: T.Optional(T.Union([T.Array(T.Number(), { maxItems: 2 }), T.Array(T.String())])),
  objects: T.Optional(
    T.Union([T.Object({ kind: T.Literal('a'), list: T.Array(T.Number(), { maxItems: 1 }) }), T.Object({ list: T.Array(T.Number()) })]),
  ),
});
const over = (value: unknown) => overLongArray(schema as unknown as CappedSchema, value);

describe('array caps before validation', () => {
  test('an array past its maxItems is found with its path and cap; within it, or uncapped, it is not', () => {
    expect(over({ stop: ['a', 'b', 'c', 'd'] })).toBeNull();
    expect(over({ stop: ['a', 'b', 'c', 'd', 'e'] })).toEqual({ path: ['stop'], maxItems: 4 });
    expect(over({ free: Array(100_000).fill(1) })).toBeNull();
    expect(over({ stop: 'text', free: [] })).toBeNull();
  });

  test('arrays inside arrays are checked element by element, within the outer cap', () => {
    expect(over({ nested: [{ urls: ['a'] }, { urls: ['a', 'b', 'c'] }] })).toEqual({ path: ['nested', 1, 'urls'], maxItems: 2 });
    expect(over({ nested: Array(4).fill({ urls: [] }) })).toEqual({ path: ['nested'], maxItems: 3 });
  });

  test('a union allows the largest cap of its array alternatives, and no cap when one has none', () => {
    expect(over({ either: [1, 2, 3, 4, 5] })).toBeNull();
    expect(over({ either: Array(6).fill('x') })).toEqual({ path: ['either'], maxItems: 5 });
    expect(over({ uncappedAlternative: Array(1000).fill(1) })).toBeNull();
  });

  test('an object union refuses only when every alternative would', () => {
    expect(over({ objects: { kind: 'a', list: [1, 2] } })).toBeNull();
  });

  test('values of other types, and bodies that are not objects, are left to validation', () => {
    expect(over({ stop: 5 })).toBeNull();
    expect(over([1, 2, 3])).toBeNull();
    expect(over('text')).toBeNull();
    expect(overLongArray(undefined, { stop: Array(9).fill('x') })).toBeNull();
  });
});
