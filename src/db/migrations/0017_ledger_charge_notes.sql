ALTER TABLE "ledger_charges" ADD COLUMN "notes" text;--> statement-breakpoint
CREATE OR REPLACE VIEW "ledger_lines" AS
	SELECT e.id, 0 AS line, e.account_id, e.api_key_id, e.request_id, e.kind, e.currency, e.sku, e.model_id, e.units,
		e.price_per_unit_usd, e.amount_micros, e.notes, e.prompt_tokens, e.completion_tokens, e.execution_ms, e.created_at
	FROM "ledger_entries" e
	UNION ALL
	SELECT c.id, (l.n - 1)::int AS line, c.account_id, c.api_key_id, c.request_id, 'CHARGE'::text, c.currency, l.sku, c.model_id, l.units,
		l."pricePerUnitUsd", l.amount, c.notes, c.prompt_tokens, c.completion_tokens, c.execution_ms, c.created_at
	FROM "ledger_charges" c
	CROSS JOIN LATERAL ROWS FROM (json_to_recordset(c.lines) AS (sku text, units text, "pricePerUnitUsd" text, amount bigint))
		WITH ORDINALITY AS l(sku, units, "pricePerUnitUsd", amount, n);
