-- beaver_keystone: derived by build.py from peterbaile/beaver (dev_tables.json, dw_join_keys.json, dev_dw.json, dev_nw.json); see README.md

CREATE TABLE "access_token" (
  "id" VARCHAR(64) NOT NULL,
  "access_secret" VARCHAR(64) NOT NULL,
  "authorizing_user_id" VARCHAR(64) NOT NULL,
  "project_id" VARCHAR(64) NOT NULL,
  "role_ids" TEXT NOT NULL,
  "consumer_id" VARCHAR(64) NOT NULL,
  "expires_at" VARCHAR(64),
  PRIMARY KEY ("id")
);

CREATE TABLE "assignment" (
  "type" TEXT NOT NULL,
  "actor_id" VARCHAR(64) NOT NULL,
  "target_id" VARCHAR(64) NOT NULL,
  "role_id" VARCHAR(64) NOT NULL,
  "inherited" SMALLINT NOT NULL,
  PRIMARY KEY ("role_id", "target_id", "inherited", "actor_id", "type")
);

CREATE TABLE "config_register" (
  "type" VARCHAR(64) NOT NULL,
  "domain_id" VARCHAR(64) NOT NULL,
  PRIMARY KEY ("type")
);

CREATE TABLE "consumer" (
  "id" VARCHAR(64) NOT NULL,
  "description" VARCHAR(64),
  "secret" VARCHAR(64) NOT NULL,
  "extra" TEXT NOT NULL,
  PRIMARY KEY ("id")
);

CREATE TABLE "credential" (
  "id" VARCHAR(64) NOT NULL,
  "user_id" VARCHAR(64) NOT NULL,
  "project_id" VARCHAR(64),
  "blob" TEXT NOT NULL,
  "type" VARCHAR(255) NOT NULL,
  "extra" TEXT,
  PRIMARY KEY ("id")
);

CREATE TABLE "domain" (
  "id" VARCHAR(64) NOT NULL,
  "name" VARCHAR(64) NOT NULL,
  "enabled" SMALLINT NOT NULL,
  "extra" TEXT,
  PRIMARY KEY ("id")
);

CREATE TABLE "endpoint" (
  "id" VARCHAR(64) NOT NULL,
  "legacy_endpoint_id" VARCHAR(64),
  "interface" VARCHAR(8) NOT NULL,
  "service_id" VARCHAR(64) NOT NULL,
  "url" TEXT NOT NULL,
  "extra" TEXT,
  "enabled" SMALLINT NOT NULL,
  "region_id" VARCHAR(255),
  PRIMARY KEY ("id")
);

CREATE TABLE "endpoint_group" (
  "id" VARCHAR(64) NOT NULL,
  "name" VARCHAR(255) NOT NULL,
  "description" TEXT,
  "filters" TEXT NOT NULL,
  PRIMARY KEY ("id")
);

CREATE TABLE "federated_user" (
  "id" INTEGER NOT NULL,
  "user_id" VARCHAR(64) NOT NULL,
  "idp_id" VARCHAR(64) NOT NULL,
  "protocol_id" VARCHAR(64) NOT NULL,
  "unique_id" VARCHAR(255) NOT NULL,
  "display_name" VARCHAR(255),
  PRIMARY KEY ("id")
);

CREATE TABLE "federation_protocol" (
  "id" VARCHAR(64) NOT NULL,
  "idp_id" VARCHAR(64) NOT NULL,
  "mapping_id" VARCHAR(64) NOT NULL,
  PRIMARY KEY ("id", "idp_id")
);

CREATE TABLE "group" (
  "id" VARCHAR(64) NOT NULL,
  "domain_id" VARCHAR(64) NOT NULL,
  "name" VARCHAR(64) NOT NULL,
  "description" TEXT,
  "extra" TEXT,
  PRIMARY KEY ("id")
);

CREATE TABLE "id_mapping" (
  "public_id" VARCHAR(64) NOT NULL,
  "domain_id" VARCHAR(64) NOT NULL,
  "local_id" VARCHAR(64) NOT NULL,
  "entity_type" TEXT NOT NULL,
  PRIMARY KEY ("public_id")
);

CREATE TABLE "identity_provider" (
  "id" VARCHAR(64) NOT NULL,
  "enabled" SMALLINT NOT NULL,
  "description" TEXT,
  PRIMARY KEY ("id")
);

CREATE TABLE "idp_remote_ids" (
  "idp_id" VARCHAR(64),
  "remote_id" VARCHAR(255) NOT NULL,
  PRIMARY KEY ("remote_id")
);

CREATE TABLE "implied_role" (
  "prior_role_id" VARCHAR(64) NOT NULL,
  "implied_role_id" VARCHAR(64) NOT NULL,
  PRIMARY KEY ("implied_role_id", "prior_role_id")
);

CREATE TABLE "local_user" (
  "id" INTEGER NOT NULL,
  "user_id" VARCHAR(64) NOT NULL,
  "domain_id" VARCHAR(64) NOT NULL,
  "name" VARCHAR(255) NOT NULL,
  PRIMARY KEY ("id")
);

CREATE TABLE "mapping" (
  "id" VARCHAR(64) NOT NULL,
  "rules" TEXT NOT NULL,
  PRIMARY KEY ("id")
);

CREATE TABLE "migrate_version" (
  "repository_id" VARCHAR(250) NOT NULL,
  "repository_path" TEXT,
  "version" INTEGER,
  PRIMARY KEY ("repository_id")
);

CREATE TABLE "password" (
  "id" INTEGER NOT NULL,
  "local_user_id" INTEGER NOT NULL,
  "password" VARCHAR(128) NOT NULL,
  PRIMARY KEY ("id")
);

CREATE TABLE "policy" (
  "id" VARCHAR(64) NOT NULL,
  "type" VARCHAR(255) NOT NULL,
  "blob" TEXT NOT NULL,
  "extra" TEXT,
  PRIMARY KEY ("id")
);

CREATE TABLE "policy_association" (
  "id" VARCHAR(64) NOT NULL,
  "policy_id" VARCHAR(64) NOT NULL,
  "endpoint_id" VARCHAR(64),
  "service_id" VARCHAR(64),
  "region_id" VARCHAR(64),
  PRIMARY KEY ("id")
);

CREATE TABLE "project" (
  "id" VARCHAR(64) NOT NULL,
  "name" VARCHAR(64) NOT NULL,
  "extra" TEXT,
  "description" TEXT,
  "enabled" SMALLINT,
  "domain_id" VARCHAR(64) NOT NULL,
  "parent_id" VARCHAR(64),
  "is_domain" SMALLINT NOT NULL,
  PRIMARY KEY ("id")
);

CREATE TABLE "project_endpoint" (
  "endpoint_id" VARCHAR(64) NOT NULL,
  "project_id" VARCHAR(64) NOT NULL,
  PRIMARY KEY ("endpoint_id", "project_id")
);

CREATE TABLE "project_endpoint_group" (
  "endpoint_group_id" VARCHAR(64) NOT NULL,
  "project_id" VARCHAR(64) NOT NULL,
  PRIMARY KEY ("project_id", "endpoint_group_id")
);

CREATE TABLE "region" (
  "id" VARCHAR(255) NOT NULL,
  "description" VARCHAR(255) NOT NULL,
  "parent_region_id" VARCHAR(255),
  "extra" TEXT,
  PRIMARY KEY ("id")
);

CREATE TABLE "request_token" (
  "id" VARCHAR(64) NOT NULL,
  "request_secret" VARCHAR(64) NOT NULL,
  "verifier" VARCHAR(64),
  "authorizing_user_id" VARCHAR(64),
  "requested_project_id" VARCHAR(64) NOT NULL,
  "role_ids" TEXT,
  "consumer_id" VARCHAR(64) NOT NULL,
  "expires_at" VARCHAR(64),
  PRIMARY KEY ("id")
);

CREATE TABLE "revocation_event" (
  "id" INTEGER NOT NULL,
  "domain_id" VARCHAR(64),
  "project_id" VARCHAR(64),
  "user_id" VARCHAR(64),
  "role_id" VARCHAR(64),
  "trust_id" VARCHAR(64),
  "consumer_id" VARCHAR(64),
  "access_token_id" VARCHAR(64),
  "issued_before" TIMESTAMP NOT NULL,
  "expires_at" TIMESTAMP,
  "revoked_at" TIMESTAMP NOT NULL,
  "audit_id" VARCHAR(32),
  "audit_chain_id" VARCHAR(32),
  PRIMARY KEY ("id")
);

CREATE TABLE "role" (
  "id" VARCHAR(64) NOT NULL,
  "name" VARCHAR(255),
  "extra" TEXT,
  "domain_id" VARCHAR(64) NOT NULL,
  PRIMARY KEY ("id")
);

CREATE TABLE "sensitive_config" (
  "domain_id" VARCHAR(64) NOT NULL,
  "group" VARCHAR(255) NOT NULL,
  "option" VARCHAR(255) NOT NULL,
  "value" TEXT NOT NULL,
  PRIMARY KEY ("domain_id", "option", "group")
);

CREATE TABLE "service" (
  "id" VARCHAR(64) NOT NULL,
  "type" VARCHAR(255),
  "extra" TEXT,
  "enabled" SMALLINT NOT NULL,
  PRIMARY KEY ("id")
);

CREATE TABLE "service_provider" (
  "auth_url" VARCHAR(256) NOT NULL,
  "id" VARCHAR(64) NOT NULL,
  "enabled" SMALLINT NOT NULL,
  "description" TEXT,
  "sp_url" VARCHAR(256) NOT NULL,
  "relay_state_prefix" VARCHAR(256) NOT NULL,
  PRIMARY KEY ("id")
);

CREATE TABLE "token" (
  "id" VARCHAR(64) NOT NULL,
  "expires" TIMESTAMP,
  "extra" TEXT,
  "valid" SMALLINT NOT NULL,
  "trust_id" VARCHAR(64),
  "user_id" VARCHAR(64),
  PRIMARY KEY ("id")
);

CREATE TABLE "trust" (
  "id" VARCHAR(64) NOT NULL,
  "trustor_user_id" VARCHAR(64) NOT NULL,
  "trustee_user_id" VARCHAR(64) NOT NULL,
  "project_id" VARCHAR(64),
  "impersonation" SMALLINT NOT NULL,
  "deleted_at" TIMESTAMP,
  "expires_at" TIMESTAMP,
  "extra" TEXT,
  "remaining_uses" INTEGER,
  PRIMARY KEY ("id")
);

CREATE TABLE "trust_role" (
  "trust_id" VARCHAR(64) NOT NULL,
  "role_id" VARCHAR(64) NOT NULL,
  PRIMARY KEY ("trust_id", "role_id")
);

CREATE TABLE "user" (
  "id" VARCHAR(64) NOT NULL,
  "extra" TEXT,
  "enabled" SMALLINT,
  "default_project_id" VARCHAR(64),
  PRIMARY KEY ("id")
);

CREATE TABLE "user_group_membership" (
  "user_id" VARCHAR(64) NOT NULL,
  "group_id" VARCHAR(64) NOT NULL,
  PRIMARY KEY ("user_id", "group_id")
);

CREATE TABLE "whitelisted_config" (
  "domain_id" VARCHAR(64) NOT NULL,
  "group" VARCHAR(255) NOT NULL,
  "option" VARCHAR(255) NOT NULL,
  "value" TEXT NOT NULL,
  PRIMARY KEY ("domain_id", "option", "group")
);

ALTER TABLE "access_token" ADD FOREIGN KEY ("consumer_id") REFERENCES "consumer" ("id");
ALTER TABLE "endpoint" ADD FOREIGN KEY ("service_id") REFERENCES "service" ("id");
ALTER TABLE "endpoint" ADD FOREIGN KEY ("region_id") REFERENCES "region" ("id");
ALTER TABLE "federated_user" ADD FOREIGN KEY ("user_id") REFERENCES "user" ("id");
ALTER TABLE "federated_user" ADD FOREIGN KEY ("idp_id") REFERENCES "identity_provider" ("id");
-- join key (referenced column not unique): federated_user(protocol_id) -> federation_protocol(id)
-- join key (referenced column not unique): federated_user(idp_id) -> federation_protocol(idp_id)
ALTER TABLE "federation_protocol" ADD FOREIGN KEY ("idp_id") REFERENCES "identity_provider" ("id");
ALTER TABLE "idp_remote_ids" ADD FOREIGN KEY ("idp_id") REFERENCES "identity_provider" ("id");
ALTER TABLE "implied_role" ADD FOREIGN KEY ("implied_role_id") REFERENCES "role" ("id");
ALTER TABLE "implied_role" ADD FOREIGN KEY ("prior_role_id") REFERENCES "role" ("id");
ALTER TABLE "local_user" ADD FOREIGN KEY ("user_id") REFERENCES "user" ("id");
ALTER TABLE "password" ADD FOREIGN KEY ("local_user_id") REFERENCES "local_user" ("id");
ALTER TABLE "project" ADD FOREIGN KEY ("domain_id") REFERENCES "project" ("id");
ALTER TABLE "project" ADD FOREIGN KEY ("parent_id") REFERENCES "project" ("id");
ALTER TABLE "project_endpoint_group" ADD FOREIGN KEY ("endpoint_group_id") REFERENCES "endpoint_group" ("id");
ALTER TABLE "request_token" ADD FOREIGN KEY ("consumer_id") REFERENCES "consumer" ("id");
ALTER TABLE "user_group_membership" ADD FOREIGN KEY ("user_id") REFERENCES "user" ("id");
ALTER TABLE "user_group_membership" ADD FOREIGN KEY ("group_id") REFERENCES "group" ("id");
