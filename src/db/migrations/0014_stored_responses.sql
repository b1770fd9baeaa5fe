CREATE TABLE "stored_responses" (
	"id" text PRIMARY KEY NOT NULL,
	"account_id" uuid NOT NULL,
	"previous_response_id" text,
	"root_id" text NOT NULL,
	"status" text NOT NULL,
	"input" jsonb NOT NULL,
	"response" jsonb NOT NULL,
	"created_at" timestamp (3) with time zone NOT NULL,
	"expires_at" timestamp (3) with time zone NOT NULL
);
--> statement-breakpoint
CREATE INDEX "stored_responses_expiry_idx" ON "stored_responses" USING btree ("expires_at");