CREATE TABLE "usage_daily" (
	"account_id" uuid NOT NULL,
	"day" date NOT NULL,
	"model_key" text NOT NULL,
	"sku" text NOT NULL,
	"api_key" text NOT NULL,
	"currency" text NOT NULL,
	"amount_micros" bigint NOT NULL,
	"units" numeric NOT NULL
);
--> statement-breakpoint
CREATE INDEX "usage_daily_account_day_idx" ON "usage_daily" USING btree ("account_id","day");