ALTER TABLE "accounts" ADD COLUMN "scratch" boolean DEFAULT false NOT NULL;
