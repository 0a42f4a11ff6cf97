-- beaver_csail_stata_glance: derived by build.py from peterbaile/beaver (dev_tables.json, dw_join_keys.json, dev_dw.json, dev_nw.json); see README.md

CREATE TABLE "artifact_blob_locations" (
  "id" VARCHAR(36) NOT NULL,
  "blob_id" VARCHAR(36) NOT NULL,
  "value" TEXT NOT NULL,
  "created_at" TIMESTAMP NOT NULL,
  "updated_at" TIMESTAMP NOT NULL,
  "position" INTEGER,
  "status" VARCHAR(36),
  PRIMARY KEY ("id"),
  FOREIGN KEY ("blob_id") REFERENCES "artifact_blobs" ("id")
);

CREATE TABLE "artifact_blobs" (
  "id" VARCHAR(36) NOT NULL,
  "artifact_id" VARCHAR(36) NOT NULL,
  "size" BIGINT NOT NULL,
  "checksum" VARCHAR(32),
  "name" VARCHAR(255) NOT NULL,
  "item_key" VARCHAR(329),
  "position" INTEGER,
  "created_at" TIMESTAMP NOT NULL,
  "updated_at" TIMESTAMP NOT NULL,
  PRIMARY KEY ("id"),
  FOREIGN KEY ("artifact_id") REFERENCES "artifacts" ("id")
);

CREATE TABLE "artifact_dependencies" (
  "id" VARCHAR(36) NOT NULL,
  "artifact_source" VARCHAR(36) NOT NULL,
  "artifact_dest" VARCHAR(36) NOT NULL,
  "artifact_origin" VARCHAR(36) NOT NULL,
  "is_direct" SMALLINT NOT NULL,
  "position" INTEGER,
  "name" VARCHAR(36),
  "created_at" TIMESTAMP NOT NULL,
  "updated_at" TIMESTAMP NOT NULL,
  PRIMARY KEY ("id"),
  FOREIGN KEY ("artifact_source") REFERENCES "artifacts" ("id"),
  FOREIGN KEY ("artifact_dest") REFERENCES "artifacts" ("id"),
  FOREIGN KEY ("artifact_origin") REFERENCES "artifacts" ("id")
);

CREATE TABLE "artifact_properties" (
  "id" VARCHAR(36) NOT NULL,
  "artifact_id" VARCHAR(36) NOT NULL,
  "name" VARCHAR(255) NOT NULL,
  "string_value" VARCHAR(255),
  "int_value" INTEGER,
  "numeric_value" NUMERIC(10,0),
  "bool_value" SMALLINT,
  "text_value" TEXT,
  "created_at" TIMESTAMP NOT NULL,
  "updated_at" TIMESTAMP NOT NULL,
  "position" INTEGER,
  PRIMARY KEY ("id"),
  FOREIGN KEY ("artifact_id") REFERENCES "artifacts" ("id")
);

CREATE TABLE "artifact_tags" (
  "id" VARCHAR(36) NOT NULL,
  "artifact_id" VARCHAR(36) NOT NULL,
  "value" VARCHAR(255) NOT NULL,
  "created_at" TIMESTAMP NOT NULL,
  "updated_at" TIMESTAMP NOT NULL,
  PRIMARY KEY ("id"),
  FOREIGN KEY ("artifact_id") REFERENCES "artifacts" ("id")
);

CREATE TABLE "artifacts" (
  "id" VARCHAR(36) NOT NULL,
  "name" VARCHAR(255) NOT NULL,
  "type_name" VARCHAR(255) NOT NULL,
  "type_version_prefix" BIGINT NOT NULL,
  "type_version_suffix" VARCHAR(255),
  "type_version_meta" VARCHAR(255),
  "version_prefix" BIGINT NOT NULL,
  "version_suffix" VARCHAR(255),
  "version_meta" VARCHAR(255),
  "description" TEXT,
  "visibility" VARCHAR(32) NOT NULL,
  "state" VARCHAR(32) NOT NULL,
  "owner" VARCHAR(255) NOT NULL,
  "created_at" TIMESTAMP NOT NULL,
  "updated_at" TIMESTAMP NOT NULL,
  "deleted_at" TIMESTAMP,
  "published_at" TIMESTAMP,
  PRIMARY KEY ("id")
);

CREATE TABLE "image_locations" (
  "id" INTEGER NOT NULL,
  "image_id" VARCHAR(36) NOT NULL,
  "value" TEXT NOT NULL,
  "created_at" TIMESTAMP NOT NULL,
  "updated_at" TIMESTAMP,
  "deleted_at" TIMESTAMP,
  "deleted" SMALLINT NOT NULL,
  "meta_data" TEXT,
  "status" VARCHAR(30) NOT NULL,
  PRIMARY KEY ("id"),
  FOREIGN KEY ("image_id") REFERENCES "images" ("id")
);

CREATE TABLE "image_members" (
  "id" INTEGER NOT NULL,
  "image_id" VARCHAR(36) NOT NULL,
  "member" VARCHAR(255) NOT NULL,
  "can_share" SMALLINT NOT NULL,
  "created_at" TIMESTAMP NOT NULL,
  "updated_at" TIMESTAMP,
  "deleted_at" TIMESTAMP,
  "deleted" SMALLINT NOT NULL,
  "status" VARCHAR(20) NOT NULL,
  PRIMARY KEY ("id"),
  FOREIGN KEY ("image_id") REFERENCES "images" ("id")
);

CREATE TABLE "image_properties" (
  "id" INTEGER NOT NULL,
  "image_id" VARCHAR(36) NOT NULL,
  "name" VARCHAR(255) NOT NULL,
  "value" TEXT,
  "created_at" TIMESTAMP NOT NULL,
  "updated_at" TIMESTAMP,
  "deleted_at" TIMESTAMP,
  "deleted" SMALLINT NOT NULL,
  PRIMARY KEY ("id"),
  FOREIGN KEY ("image_id") REFERENCES "images" ("id")
);

CREATE TABLE "image_tags" (
  "id" INTEGER NOT NULL,
  "image_id" VARCHAR(36) NOT NULL,
  "value" VARCHAR(255) NOT NULL,
  "created_at" TIMESTAMP NOT NULL,
  "updated_at" TIMESTAMP,
  "deleted_at" TIMESTAMP,
  "deleted" SMALLINT NOT NULL,
  PRIMARY KEY ("id"),
  FOREIGN KEY ("image_id") REFERENCES "images" ("id")
);

CREATE TABLE "images" (
  "id" VARCHAR(36) NOT NULL,
  "name" VARCHAR(255),
  "size" BIGINT,
  "status" VARCHAR(30) NOT NULL,
  "is_public" SMALLINT NOT NULL,
  "created_at" TIMESTAMP NOT NULL,
  "updated_at" TIMESTAMP,
  "deleted_at" TIMESTAMP,
  "deleted" SMALLINT NOT NULL,
  "disk_format" VARCHAR(20),
  "container_format" VARCHAR(20),
  "checksum" VARCHAR(32),
  "owner" VARCHAR(255),
  "min_disk" INTEGER NOT NULL,
  "min_ram" INTEGER NOT NULL,
  "protected" SMALLINT NOT NULL,
  "virtual_size" BIGINT,
  PRIMARY KEY ("id")
);

CREATE TABLE "metadef_namespace_resource_types" (
  "resource_type_id" INTEGER NOT NULL,
  "namespace_id" INTEGER NOT NULL,
  "properties_target" VARCHAR(80),
  "prefix" VARCHAR(80),
  "created_at" TIMESTAMP NOT NULL,
  "updated_at" TIMESTAMP,
  PRIMARY KEY ("resource_type_id", "namespace_id"),
  FOREIGN KEY ("resource_type_id") REFERENCES "metadef_resource_types" ("id"),
  FOREIGN KEY ("namespace_id") REFERENCES "metadef_namespaces" ("id")
);

CREATE TABLE "metadef_namespaces" (
  "id" INTEGER NOT NULL,
  "namespace" VARCHAR(80) NOT NULL,
  "display_name" VARCHAR(80),
  "description" TEXT,
  "visibility" VARCHAR(32),
  "protected" SMALLINT,
  "owner" VARCHAR(255) NOT NULL,
  "created_at" TIMESTAMP NOT NULL,
  "updated_at" TIMESTAMP,
  PRIMARY KEY ("id")
);

CREATE TABLE "metadef_objects" (
  "id" INTEGER NOT NULL,
  "namespace_id" INTEGER NOT NULL,
  "name" VARCHAR(80) NOT NULL,
  "description" TEXT,
  "required" TEXT,
  "json_schema" TEXT NOT NULL,
  "created_at" TIMESTAMP NOT NULL,
  "updated_at" TIMESTAMP,
  PRIMARY KEY ("id"),
  FOREIGN KEY ("namespace_id") REFERENCES "metadef_namespaces" ("id")
);

CREATE TABLE "metadef_properties" (
  "id" INTEGER NOT NULL,
  "namespace_id" INTEGER NOT NULL,
  "name" VARCHAR(80) NOT NULL,
  "json_schema" TEXT NOT NULL,
  "created_at" TIMESTAMP NOT NULL,
  "updated_at" TIMESTAMP,
  PRIMARY KEY ("id"),
  FOREIGN KEY ("namespace_id") REFERENCES "metadef_namespaces" ("id")
);

CREATE TABLE "metadef_resource_types" (
  "id" INTEGER NOT NULL,
  "name" VARCHAR(80) NOT NULL,
  "protected" SMALLINT NOT NULL,
  "created_at" TIMESTAMP NOT NULL,
  "updated_at" TIMESTAMP,
  PRIMARY KEY ("id")
);

CREATE TABLE "metadef_tags" (
  "id" INTEGER NOT NULL,
  "namespace_id" INTEGER NOT NULL,
  "name" VARCHAR(80) NOT NULL,
  "created_at" TIMESTAMP NOT NULL,
  "updated_at" TIMESTAMP,
  PRIMARY KEY ("id"),
  FOREIGN KEY ("namespace_id") REFERENCES "metadef_namespaces" ("id")
);

CREATE TABLE "migrate_version" (
  "repository_id" VARCHAR(250) NOT NULL,
  "repository_path" TEXT,
  "version" INTEGER,
  PRIMARY KEY ("repository_id")
);

CREATE TABLE "task_info" (
  "task_id" VARCHAR(36) NOT NULL,
  "input" TEXT,
  "result" TEXT,
  "message" TEXT,
  PRIMARY KEY ("task_id"),
  FOREIGN KEY ("task_id") REFERENCES "tasks" ("id")
);

CREATE TABLE "tasks" (
  "id" VARCHAR(36) NOT NULL,
  "type" VARCHAR(30) NOT NULL,
  "status" VARCHAR(30) NOT NULL,
  "owner" VARCHAR(255) NOT NULL,
  "expires_at" TIMESTAMP,
  "created_at" TIMESTAMP NOT NULL,
  "updated_at" TIMESTAMP,
  "deleted_at" TIMESTAMP,
  "deleted" SMALLINT NOT NULL,
  PRIMARY KEY ("id")
);

