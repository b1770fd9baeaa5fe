-- The ledger writer now appends a batch's daily sums to usage_daily itself, in the same
-- transaction as its charges (src/billing/daily-rollup.ts): grouped in JavaScript on the
-- embedded database, in the insert statement on Postgres. The statement trigger that
-- expanded every inserted charge's JSON lines again cost an embedded ledger row 2.2 to 2.5
-- times its CPU. Deleting charges (a scratch account) and ledger entries keep their triggers.
DROP TRIGGER ledger_charges_usage_daily_insert ON ledger_charges;
