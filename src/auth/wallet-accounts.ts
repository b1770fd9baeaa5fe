import { eq } from 'drizzle-orm';
import type { Database } from '../db/database';
import { accounts, balances } from '../db/schema';

/** A wallet's account as the auth gate needs it. */
export interface WalletAccount {
  id: string;
  tier: 'standard' | 'partner';
}

/** The stored form of an address: lower-case for EVM (checksums vary), as given for base58 Solana. */
export function normalizeWalletAddress(address: string, chain: 'evm' | 'solana'): string {
  return chain === 'evm' ? address.toLowerCase() : address;
}

/**
 * Finds or creates the account of a wallet (accounts.kind = 'wallet') and makes sure it has
 * a USDC balance row, which wallet charges and x402 top-ups use. Safe under concurrent first
 * sign-ins: the unique wallet index decides, the loser reads the winner's row.
 */
export async function ensureWalletAccount(db: Database, address: string, chain: 'evm' | 'solana'): Promise<WalletAccount> {
  const walletAddress = normalizeWalletAddress(address, chain);
  const inserted = await db
    .insert(accounts)
    .values({ kind: 'wallet', walletAddress, walletChain: chain })
    .onConflictDoNothing({ target: accounts.walletAddress })
    .returning({ id: accounts.id, tier: accounts.tier });
  let account = inserted[0];
  if (!account) {
    const [existing] = await db
      .select({ id: accounts.id, tier: accounts.tier })
      .from(accounts)
      .where(eq(accounts.walletAddress, walletAddress))
      .limit(1);
    if (!existing) throw new Error('wallet account vanished after conflict');
    account = existing;
  }
  await db.insert(balances).values({ accountId: account.id, currency: 'USDC', amountMicros: 0 }).onConflictDoNothing();
  return account;
}
