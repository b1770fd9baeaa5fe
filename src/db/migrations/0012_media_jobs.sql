CREATE TABLE "media_jobs" (
	"id" text PRIMARY KEY NOT NULL,
	"kind" text NOT NULL,
	"account_id" uuid NOT NULL,
	"model_id" text NOT NULL,
	"request_id" text NOT NULL,
	"charges" jsonb NOT NULL,
	"provider_id" text NOT NULL,
	"upstream_model" text NOT NULL,
	"upstream_id" text NOT NULL,
	"status" text NOT NULL,
	"error" text,
	"outcome" text,
	"media_key" text,
	"media_type" text,
	"media_bytes" bigint,
	"polls" integer DEFAULT 0 NOT NULL,
	"lease_owner" text,
	"lease_until" timestamp (3) with time zone,
	"next_poll_at" timestamp (3) with time zone NOT NULL,
	"deadline_at" timestamp (3) with time zone NOT NULL,
	"created_at" timestamp (3) with time zone NOT NULL,
	"finished_at" timestamp (3) with time zone
);
--> statement-breakpoint
CREATE INDEX "media_jobs_due_idx" ON "media_jobs" USING btree ("status","next_poll_at");--> statement-breakpoint
CREATE INDEX "media_jobs_model_idx" ON "media_jobs" USING btree ("model_id","status");