CREATE TABLE "cloned_voices" (
	"id" text PRIMARY KEY NOT NULL,
	"account_id" uuid NOT NULL,
	"model_id" text NOT NULL,
	"sample_format" text NOT NULL,
	"sample_ms" integer NOT NULL,
	"sample_sha256" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"expires_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE INDEX "cloned_voices_account_idx" ON "cloned_voices" USING btree ("account_id");