CREATE TABLE "ledger_dead_letters" (
	"request_id" text PRIMARY KEY NOT NULL,
	"account_id" text NOT NULL,
	"charge" jsonb NOT NULL,
	"error" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
