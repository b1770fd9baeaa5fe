CREATE TABLE "request_log_bodies" (
	"request_id" text PRIMARY KEY NOT NULL,
	"at" timestamp (3) with time zone NOT NULL,
	"request" text,
	"request_truncated" boolean DEFAULT false NOT NULL,
	"response" text,
	"response_truncated" boolean DEFAULT false NOT NULL
);
--> statement-breakpoint
CREATE INDEX "request_log_bodies_at_idx" ON "request_log_bodies" USING btree ("at");