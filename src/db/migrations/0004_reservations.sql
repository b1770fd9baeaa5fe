CREATE TABLE "reservations" (
	"request_id" text PRIMARY KEY NOT NULL,
	"account_id" uuid NOT NULL,
	"api_key_id" uuid,
	"model_id" text,
	"currency" text NOT NULL,
	"amount_micros" bigint NOT NULL,
	"counter" text DEFAULT '' NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE INDEX "reservations_expires_idx" ON "reservations" USING btree ("expires_at");
