import type { Database } from '../db/database';
import { badRequest, forbidden, upstreamError } from '../http/errors';
import type { KeyValueStore } from '../kv/store';
import { EligibilityUnavailable, type EligibilityProvider } from './eligibility';
import { parseExpiry, type CreateKeyInput, type KeysService } from './keys-service';
import { isEvmAddress, verifyEvmSignature } from './siwx/evm';
import { ensureWalletAccount } from './wallet-accounts';
import type { WalletsConfig } from './wallet-config';
import { TokenError, type Web3Tokens } from './web3-token';

/** The body of POST /api_keys/generate_web3_key after schema validation. */
export interface Web3KeyRequest extends Omit<CreateKeyInput, 'description'> {
  address: string;
  signature: string;
  token: string;
  description?: string;
}

const field = (name: string, message: string) => [{ path: [name], message }];

/**
 * The web3 key flow (spec 4.2): hand out a signed single-use token; later accept the
 * wallet's signature of it, check that the wallet is eligible (allow list or staked balance)
 * and create a key on the wallet's account. Every refusal is a 400 with the reference's text;
 * on a deployment with neither staking nor an allow list, the POST answers 403 saying how to enable keys.
 */
export function createWeb3KeyFlow(deps: {
  db: Database;
  kv: KeyValueStore;
  tokens: Web3Tokens;
  eligibility: EligibilityProvider;
  keys: KeysService;
  web3Keys: Pick<WalletsConfig['web3Keys'], 'staking' | 'allowList'>;
  now: () => number;
}) {
  const { staking, allowList } = deps.web3Keys;
  const enabled = staking !== undefined || allowList.length > 0;
  const notEligible = staking
    ? `Wallet has no staked ${staking.symbol} on ${staking.network}`
    : "Wallet is not on this deployment's allow list for web3 API keys (wallets.web3Keys.allowList)";

  /** 403 for a redemption on a deployment with neither staking nor an allow list: no wallet could ever get a key. */
  function checkEnabled(): void {
    if (!enabled)
      throw forbidden(
        'Web3 API keys are not enabled on this deployment: the operator enables them with wallets.web3Keys.staking ' +
          '(a JSON-RPC node and the staking token whose holders get keys) or wallets.web3Keys.allowList (wallet addresses); ' +
          'wallets can still sign in (SIGN-IN-WITH-X) and pay with x402 without a key',
      );
  }

  return {
    /** GET: a fresh token to sign. */
    async issueToken() {
      // Issued even when keys are off: the reference's GET always answers 200 with a token.
      return (await deps.tokens.issue()).token;
    },

    /** POST: verifies everything, then burns the token and creates the key. */
    async redeem(input: Web3KeyRequest) {
      checkEnabled();
      parseExpiry(input.expiresAt, deps.now());
      if (!(await isEvmAddress(input.address))) throw badRequest('Invalid wallet address', field('address', 'Invalid wallet address'));
      let claims;
      try {
        claims = await deps.tokens.verify(input.token);
      } catch (error) {
        if (error instanceof TokenError) throw badRequest(error.message, field('token', error.message));
        throw error;
      }
      if (!(await verifyEvmSignature(input.token, input.signature, input.address)))
        throw badRequest('Wallet signature does not match', field('signature', 'Wallet signature does not match'));
      let eligible: boolean;
      try {
        eligible = await deps.eligibility.isEligible(input.address.toLowerCase());
      } catch (error) {
        if (error instanceof EligibilityUnavailable) throw upstreamError(503, 'Could not verify staked balance, please retry');
        throw error;
      }
      if (!eligible) throw badRequest(notEligible, field('address', notEligible));
      // Burned last, so a failed attempt (wrong signature, RPC down) does not waste the token;
      // setIfAbsent makes two concurrent redemptions of one token yield one key.
      const ttlMs = Math.max(1_000, claims.exp * 1000 - deps.now() + 60_000);
      if (!(await deps.kv.setIfAbsent(`web3:jti:${claims.jti}`, '1', ttlMs)))
        throw badRequest('JWT has already been used', field('token', 'JWT has already been used'));
      const account = await ensureWalletAccount(deps.db, input.address, 'evm');
      return deps.keys.create(account.id, { ...input, description: input.description ?? 'Web3 API Key' });
    },
  };
}

/** The web3 key flow type. */
export type Web3KeyFlow = ReturnType<typeof createWeb3KeyFlow>;
