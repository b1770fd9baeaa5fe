CREATE TABLE "request_log" (
	"request_id" text PRIMARY KEY NOT NULL,
	"at" timestamp (3) with time zone NOT NULL,
	"account_id" uuid,
	"api_key_id" uuid,
	"method" text NOT NULL,
	"route" text NOT NULL,
	"model" text,
	"replica" text,
	"status" integer NOT NULL,
	"error" text,
	"latency_ms" integer NOT NULL,
	"ttfb_ms" integer,
	"stream" text,
	"prompt_tokens" integer,
	"completion_tokens" integer,
	"cost_micros" bigint,
	"currency" text,
	"client_ip" text,
	"user_agent" text
);
--> statement-breakpoint
CREATE INDEX "request_log_at_idx" ON "request_log" USING btree ("at","request_id");--> statement-breakpoint
CREATE INDEX "request_log_key_at_idx" ON "request_log" USING btree ("api_key_id","at");--> statement-breakpoint
CREATE INDEX "request_log_account_at_idx" ON "request_log" USING btree ("account_id","at");