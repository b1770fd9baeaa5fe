ALTER TABLE "accounts" ADD COLUMN "guardrails" text[] DEFAULT '{}'::text[] NOT NULL;--> statement-breakpoint
ALTER TABLE "api_keys" ADD COLUMN "guardrails" text[] DEFAULT '{}'::text[] NOT NULL;