CREATE TABLE "accounts" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"kind" text DEFAULT 'user' NOT NULL,
	"tier" text DEFAULT 'standard' NOT NULL,
	"wallet_address" text,
	"wallet_chain" text,
	"display_name" text,
	"rate_limit_overrides" jsonb,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "api_keys" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"account_id" uuid NOT NULL,
	"type" text NOT NULL,
	"description" text DEFAULT '' NOT NULL,
	"secret_hash" text NOT NULL,
	"last6" text NOT NULL,
	"limit_usd_micros" bigint,
	"limit_diem_micros" bigint,
	"limit_vcu_micros" bigint,
	"limit_period" text DEFAULT 'EPOCH' NOT NULL,
	"expires_at" timestamp with time zone,
	"last_used_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"deleted_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "balances" (
	"account_id" uuid NOT NULL,
	"currency" text NOT NULL,
	"amount_micros" bigint DEFAULT 0 NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "balances_account_id_currency_pk" PRIMARY KEY("account_id","currency")
);
--> statement-breakpoint
CREATE TABLE "character_reviews" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"character_id" uuid NOT NULL,
	"account_id" uuid,
	"username" text NOT NULL,
	"user_avatar_url" text,
	"locale" text,
	"message" text,
	"rating" integer NOT NULL,
	"visible" boolean DEFAULT true NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "characters" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"slug" text NOT NULL,
	"name" text NOT NULL,
	"description" text,
	"system_prompt" text NOT NULL,
	"model_id" text NOT NULL,
	"author" text DEFAULT 'svc' NOT NULL,
	"adult" boolean DEFAULT false NOT NULL,
	"featured" boolean DEFAULT false NOT NULL,
	"web_enabled" boolean DEFAULT false NOT NULL,
	"tags" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"photo_url" text,
	"share_url" text,
	"imports" integer DEFAULT 0 NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "characters_slug_unique" UNIQUE("slug")
);
--> statement-breakpoint
CREATE TABLE "ledger_entries" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"account_id" uuid NOT NULL,
	"api_key_id" uuid,
	"request_id" text NOT NULL,
	"kind" text NOT NULL,
	"currency" text NOT NULL,
	"sku" text NOT NULL,
	"model_id" text,
	"units" text DEFAULT '0' NOT NULL,
	"price_per_unit_usd" text DEFAULT '0' NOT NULL,
	"amount_micros" bigint NOT NULL,
	"notes" text,
	"prompt_tokens" integer,
	"completion_tokens" integer,
	"execution_ms" integer,
	"created_at" timestamp (6) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "rate_limit_logs" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"account_id" uuid NOT NULL,
	"api_key_id" uuid,
	"model_id" text NOT NULL,
	"tier" text NOT NULL,
	"type" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "wallet_payments" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"payment_id" text NOT NULL,
	"account_id" uuid NOT NULL,
	"network" text NOT NULL,
	"amount_micros" bigint NOT NULL,
	"transaction" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "wallet_payments_payment_id_unique" UNIQUE("payment_id")
);
--> statement-breakpoint
ALTER TABLE "api_keys" ADD CONSTRAINT "api_keys_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "balances" ADD CONSTRAINT "balances_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "character_reviews" ADD CONSTRAINT "character_reviews_character_id_characters_id_fk" FOREIGN KEY ("character_id") REFERENCES "public"."characters"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ledger_entries" ADD CONSTRAINT "ledger_entries_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "wallet_payments" ADD CONSTRAINT "wallet_payments_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "accounts_wallet_uq" ON "accounts" USING btree ("wallet_address");--> statement-breakpoint
CREATE UNIQUE INDEX "api_keys_hash_uq" ON "api_keys" USING btree ("secret_hash");--> statement-breakpoint
CREATE INDEX "api_keys_account_idx" ON "api_keys" USING btree ("account_id");--> statement-breakpoint
CREATE INDEX "reviews_character_idx" ON "character_reviews" USING btree ("character_id","created_at");--> statement-breakpoint
CREATE UNIQUE INDEX "ledger_request_uq" ON "ledger_entries" USING btree ("request_id","kind","currency","sku");--> statement-breakpoint
CREATE INDEX "ledger_account_time_idx" ON "ledger_entries" USING btree ("account_id","created_at","id");--> statement-breakpoint
CREATE INDEX "ledger_key_time_idx" ON "ledger_entries" USING btree ("api_key_id","created_at");--> statement-breakpoint
CREATE INDEX "rate_limit_logs_account_idx" ON "rate_limit_logs" USING btree ("account_id","created_at");