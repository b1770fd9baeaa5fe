ALTER TABLE "request_log" ADD COLUMN "stages" jsonb;--> statement-breakpoint
ALTER TABLE "request_log" ADD COLUMN "upstream_ms" integer;--> statement-breakpoint
ALTER TABLE "request_log" ADD COLUMN "cache" text;--> statement-breakpoint
ALTER TABLE "request_log" ADD COLUMN "guardrails" text;