import { describe, expect, test } from 'bun:test';
import { encodePaymentRequiredHeader } from '@x402/core/http';
import { buildSIWxSchema, SIGN_IN_WITH_X as PACKAGE_KEY } from '@x402/extensions/sign-in-with-x';
import { paymentRequiredHeader } from '../../src/x402/challenges';
import { SIGN_IN_PAYLOAD_SCHEMA, SIGN_IN_WITH_X } from '../../src/x402/sign-in-schema';

// svc writes these without importing the heavy entry points (src/x402/sign-in-schema.ts): they
// must stay what the x402 packages themselves produce, which clients read.
describe('402 challenge parts written without the x402 entry points', () => {
  test('the sign-in-with-x key and payload schema equal @x402/extensions', () => {
    expect(SIGN_IN_WITH_X).toBe(PACKAGE_KEY);
    expect(JSON.parse(JSON.stringify(SIGN_IN_PAYLOAD_SCHEMA))).toEqual(JSON.parse(JSON.stringify(buildSIWxSchema())));
  });

  test('the PAYMENT-REQUIRED header equals @x402/core/http encodePaymentRequiredHeader', () => {
    const required = {
      x402Version: 2,
      error: 'Payment required: Grüße, 🦦',
      resource: { url: 'https://svc.example/api/v1/x402/top-up', description: 'Top up', mimeType: 'application/json' },
      accepts: [],
    };
    expect(paymentRequiredHeader(required)['payment-required']).toBe(encodePaymentRequiredHeader(required));
  });
});
