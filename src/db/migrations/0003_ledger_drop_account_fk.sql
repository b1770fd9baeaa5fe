ALTER TABLE "ledger_entries" DROP CONSTRAINT "ledger_entries_account_id_accounts_id_fk";
