ALTER TABLE "accounts" ADD COLUMN "operator" boolean DEFAULT false NOT NULL;--> statement-breakpoint
-- Databases created before this column: the bootstrap account (the oldest user account) is the operator's.
UPDATE "accounts" SET "operator" = true WHERE "id" = (SELECT "id" FROM "accounts" WHERE "kind" = 'user' ORDER BY "created_at" LIMIT 1);
