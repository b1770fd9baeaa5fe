import { describe, expect, test } from 'bun:test';
import { relayAnswer } from '../../src/rpc/answer';
import { parseRpcBody } from '../../src/rpc/request';
import { GarbledAnswer } from '../../src/rpc/scan';

const request = (calls: unknown) => parseRpcBody(JSON.stringify(calls));
const c = (id: number | string) => ({ jsonrpc: '2.0', id, method: 'eth_chainId' });

describe('relaying a node answer', () => {
  test('a single answer goes on byte for byte, whitespace and key order included', () => {
    const text = ' {"result" : {"a":[1,{"b":"]}\\"\\\\"}]}, "id":"x\\"y" ,"jsonrpc":"2.0"}\n';
    expect(relayAnswer(request(c('x"y')), text)).toEqual({ text, errors: [false] });
  });

  test('an in-order batch goes on untouched; errors are found per call', () => {
    const text = '[{"jsonrpc":"2.0","id":1,"result":"0x1"},{"jsonrpc":"2.0","id":2,"error":{"code":-32602,"message":"[bad]"}}]';
    expect(relayAnswer(request([c(1), c(2)]), text)).toEqual({ text, errors: [false, true] });
  });

  test("a batch answered out of order is rejoined in the request's order from the node's own texts", () => {
    const text = '[ {"id":"b", "result":1.50e3} , {"id":0,"result":null} ,{"id":10,"error":{}} ]';
    const out = relayAnswer(request([c(0), c(10), c('b')]), text);
    expect(out.text).toBe('[{"id":0,"result":null},{"id":10,"error":{}},{"id":"b", "result":1.50e3}]');
    expect(out.errors).toEqual([false, true, false]);
  });

  test('ids 1 and "1" are different ids', () => {
    expect(() => relayAnswer(request(c(1)), '{"id":"1","result":1}')).toThrow(GarbledAnswer);
    expect(() => relayAnswer(request([c(1), c('1')]), '[{"id":"1","result":1},{"id":1,"result":2}]')).not.toThrow();
  });

  test('garbage is refused: not JSON, not an answer, wrong or missing ids, trailing text, broken brackets', () => {
    const one = request(c(1));
    const two = request([c(1), c(2)]);
    for (const [req, text] of [
      [one, ''],
      [one, '<html>bad gateway</html>'],
      [one, '{"id":1}'],
      [one, '{"id":2,"result":1}'],
      [one, '{"id":1,"result":1} x'],
      [one, '{"id":1,"result":[1,2}'],
      [one, '{"id":1,"result":"unclosed}'],
      [one, '[{"id":1,"result":1}]'],
      [two, '{"id":null,"error":{"code":-32600}}'],
      [two, '[{"id":1,"result":1}]'],
      [two, '[{"id":1,"result":1},{"id":3,"result":1}]'],
      [two, '[{"id":1,"result":1} {"id":2,"result":1}]'],
    ] as const)
      expect(() => relayAnswer(req, text), text).toThrow();
  });
});
