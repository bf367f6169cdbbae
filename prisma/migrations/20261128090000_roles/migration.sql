-- Roles replace API key scopes: a `read` key becomes a viewer, an `admin` key an admin; operator is new.
CREATE TYPE "role" AS ENUM ('viewer', 'operator', 'admin');

ALTER TABLE "api_keys" ADD COLUMN "role" "role" NOT NULL DEFAULT 'viewer';
UPDATE "api_keys" SET "role" = 'admin' WHERE 'admin' = ANY ("scopes");
ALTER TABLE "api_keys" DROP COLUMN "scopes";
DROP TYPE "api_key_scope";

-- The audit log names who acted: a person (subject, email) or program signed in through SSO, or a key.
ALTER TABLE "audit_log" ADD COLUMN "actor_subject" TEXT,
ADD COLUMN "actor_email" TEXT,
ADD COLUMN "actor_role" "role";
UPDATE "audit_log" a SET "actor_role" = k."role" FROM "api_keys" k WHERE k."id" = a."actor_key_id";
