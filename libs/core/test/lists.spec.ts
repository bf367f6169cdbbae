import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { emptyObjectList, mapList } from '../src/lists.js';

describe('mapList', () => {
  it('equals Array.prototype.map for any list and function', () => {
    fc.assert(
      fc.property(fc.array(fc.oneof(fc.integer(), fc.string(), fc.object())), (list) => {
        const describe = (item: unknown, index: number) => `${index}:${JSON.stringify(item)}`;
        let position = 0;
        expect(mapList(list, (item) => describe(item, position++))).toEqual(list.map(describe));
      }),
    );
  });

  it('returns a new list and leaves the input alone', () => {
    const input = Object.freeze([{ a: 1 }, { a: 2 }]);
    const output = mapList(input, (item) => ({ b: item.a * 2 }));
    expect(output).not.toBe(input);
    expect(output).toEqual([{ b: 2 }, { b: 4 }]);
    expect(input).toEqual([{ a: 1 }, { a: 2 }]);
  });
});

describe('emptyObjectList', () => {
  it('is empty, usable like any list, and a new list every time', () => {
    const first = emptyObjectList<{ name: string }>();
    const second = emptyObjectList<{ name: string }>();
    expect(first).toEqual([]);
    expect(first).not.toBe(second);
    first.push({ name: 'x' });
    expect(first).toEqual([{ name: 'x' }]);
    expect(second).toEqual([]);
  });
});
