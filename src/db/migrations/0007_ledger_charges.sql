CREATE TABLE "ledger_charges" (
	"request_id" text PRIMARY KEY NOT NULL,
	"id" bigint DEFAULT nextval('ledger_entries_id_seq') NOT NULL,
	"account_id" uuid NOT NULL,
	"api_key_id" uuid,
	"currency" text NOT NULL,
	"model_id" text,
	"lines" json NOT NULL,
	"amount_micros" bigint NOT NULL,
	"prompt_tokens" integer,
	"completion_tokens" integer,
	"execution_ms" integer,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE INDEX "ledger_charges_account_time_idx" ON "ledger_charges" USING btree ("account_id","created_at","id");
--> statement-breakpoint
CREATE VIEW "ledger_lines" AS
	SELECT e.id, 0 AS line, e.account_id, e.api_key_id, e.request_id, e.kind, e.currency, e.sku, e.model_id, e.units,
		e.price_per_unit_usd, e.amount_micros, e.notes, e.prompt_tokens, e.completion_tokens, e.execution_ms, e.created_at
	FROM "ledger_entries" e
	UNION ALL
	SELECT c.id, (l.n - 1)::int AS line, c.account_id, c.api_key_id, c.request_id, 'CHARGE'::text, c.currency, l.sku, c.model_id, l.units,
		l."pricePerUnitUsd", l.amount, NULL::text, c.prompt_tokens, c.completion_tokens, c.execution_ms, c.created_at
	FROM "ledger_charges" c
	CROSS JOIN LATERAL ROWS FROM (json_to_recordset(c.lines) AS (sku text, units text, "pricePerUnitUsd" text, amount bigint))
		WITH ORDINALITY AS l(sku, units, "pricePerUnitUsd", amount, n);
--> statement-breakpoint
CREATE VIEW "ledger_amounts" AS
	SELECT e.id, e.account_id, e.api_key_id, e.request_id, e.kind, e.currency, e.model_id, e.amount_micros, e.created_at FROM "ledger_entries" e
	UNION ALL
	SELECT c.id, c.account_id, c.api_key_id, c.request_id, 'CHARGE'::text, c.currency, c.model_id, c.amount_micros, c.created_at FROM "ledger_charges" c;
