/**
 * The `sign-in-with-x` extension's key and payload JSON Schema, as `@x402/extensions`
 * (`SIGN_IN_WITH_X`, `buildSIWxSchema()`) writes them into a 402. Written out here because
 * importing that entry point for two constants loads the wallet crypto stacks it depends on
 * (~30 MB of RSS in every process); test/x402/sign-in-schema.test.ts pins both to the
 * package's own values, so an upgrade that changes them fails there.
 */
export const SIGN_IN_WITH_X = 'sign-in-with-x';

const uri = { type: 'string', format: 'uri' } as const;
const dateTime = { type: 'string', format: 'date-time' } as const;

/** The JSON Schema of the signed payload a client sends back in SIGN-IN-WITH-X. */
export const SIGN_IN_PAYLOAD_SCHEMA = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  type: 'object',
  properties: {
    domain: { type: 'string' },
    address: { type: 'string' },
    statement: { type: 'string' },
    uri,
    version: { type: 'string' },
    chainId: { type: 'string' },
    type: { type: 'string' },
    nonce: { type: 'string' },
    issuedAt: dateTime,
    expirationTime: dateTime,
    notBefore: dateTime,
    requestId: { type: 'string' },
    resources: { type: 'array', items: uri },
    signature: { type: 'string' },
  },
  required: ['domain', 'address', 'uri', 'version', 'chainId', 'type', 'nonce', 'issuedAt', 'signature'],
} as const;
