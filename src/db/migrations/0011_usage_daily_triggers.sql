-- Keeps usage_daily (src/db/schema.ts) summing to the ledger's charges and refunds. Each
-- INSERT or DELETE statement on a ledger table (every COPY slice too) appends its rows grouped
-- per (account, day, model, SKU, key, currency), negated for a delete, in the same transaction:
-- appends only, so a batch written in many slices never updates the same rows again. Units that
-- are not plain decimals count as 0 and missing names as '': the ledger write must never fail
-- because of its rollup.
CREATE FUNCTION usage_daily_units(units text) RETURNS numeric LANGUAGE sql IMMUTABLE AS $$
  SELECT CASE WHEN units ~ '^-?[0-9]+(\.[0-9]+)?$' THEN units::numeric ELSE 0 END
$$;
--> statement-breakpoint
CREATE FUNCTION usage_daily_from_charges() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE s integer := CASE TG_OP WHEN 'DELETE' THEN -1 ELSE 1 END;
BEGIN
  INSERT INTO usage_daily (account_id, day, model_key, sku, api_key, currency, amount_micros, units)
  SELECT c.account_id, (c.created_at AT TIME ZONE 'UTC')::date, coalesce(c.model_id, c.lines->0->>'sku', ''),
    coalesce(l.sku, ''), coalesce(c.api_key_id::text, ''), c.currency, s * sum(coalesce(l.amount, 0)), s * sum(usage_daily_units(l.units))
  FROM changed c CROSS JOIN LATERAL json_to_recordset(c.lines) AS l(sku text, units text, amount bigint)
  GROUP BY 1, 2, 3, 4, 5, 6;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE FUNCTION usage_daily_from_entries() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE s integer := CASE TG_OP WHEN 'DELETE' THEN -1 ELSE 1 END;
BEGIN
  INSERT INTO usage_daily (account_id, day, model_key, sku, api_key, currency, amount_micros, units)
  SELECT e.account_id, (e.created_at AT TIME ZONE 'UTC')::date, coalesce(e.model_id, e.sku), e.sku,
    coalesce(e.api_key_id::text, ''), e.currency, s * sum(e.amount_micros), s * sum(usage_daily_units(e.units))
  FROM changed e WHERE e.kind IN ('CHARGE', 'REFUND')
  GROUP BY 1, 2, 3, 4, 5, 6;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER ledger_charges_usage_daily_insert AFTER INSERT ON ledger_charges
  REFERENCING NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION usage_daily_from_charges();
--> statement-breakpoint
CREATE TRIGGER ledger_charges_usage_daily_delete AFTER DELETE ON ledger_charges
  REFERENCING OLD TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION usage_daily_from_charges();
--> statement-breakpoint
CREATE TRIGGER ledger_entries_usage_daily_insert AFTER INSERT ON ledger_entries
  REFERENCING NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION usage_daily_from_entries();
--> statement-breakpoint
CREATE TRIGGER ledger_entries_usage_daily_delete AFTER DELETE ON ledger_entries
  REFERENCING OLD TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION usage_daily_from_entries();
--> statement-breakpoint
-- The ledger written before this migration.
INSERT INTO usage_daily (account_id, day, model_key, sku, api_key, currency, amount_micros, units)
SELECT account_id, day, model_key, sku, api_key, currency, sum(amount), sum(units) FROM (
  SELECT c.account_id, (c.created_at AT TIME ZONE 'UTC')::date AS day, coalesce(c.model_id, c.lines->0->>'sku', '') AS model_key,
    coalesce(l.sku, '') AS sku, coalesce(c.api_key_id::text, '') AS api_key, c.currency, coalesce(l.amount, 0) AS amount, usage_daily_units(l.units) AS units
  FROM ledger_charges c CROSS JOIN LATERAL json_to_recordset(c.lines) AS l(sku text, units text, amount bigint)
  UNION ALL
  SELECT e.account_id, (e.created_at AT TIME ZONE 'UTC')::date, coalesce(e.model_id, e.sku), e.sku, coalesce(e.api_key_id::text, ''),
    e.currency, e.amount_micros, usage_daily_units(e.units)
  FROM ledger_entries e WHERE e.kind IN ('CHARGE', 'REFUND')
) x GROUP BY 1, 2, 3, 4, 5, 6;
