ALTER TABLE "wallet_payments" ADD COLUMN "status" text DEFAULT 'credited' NOT NULL;--> statement-breakpoint
ALTER TABLE "wallet_payments" ADD COLUMN "nonce" text;--> statement-breakpoint
ALTER TABLE "wallet_payments" ADD COLUMN "payer" text;--> statement-breakpoint
ALTER TABLE "wallet_payments" ADD COLUMN "payload" jsonb;--> statement-breakpoint
ALTER TABLE "wallet_payments" ADD COLUMN "requirements" jsonb;--> statement-breakpoint
ALTER TABLE "wallet_payments" ADD COLUMN "error" text;--> statement-breakpoint
ALTER TABLE "wallet_payments" ADD COLUMN "updated_at" timestamp with time zone DEFAULT now() NOT NULL;--> statement-breakpoint
CREATE INDEX "wallet_payments_open_idx" ON "wallet_payments" USING btree ("status") WHERE "status" IN ('pending', 'settled');
