-- beaver_csail_stata_cinder: derived by build.py from peterbaile/beaver (dev_tables.json, dw_join_keys.json, dev_dw.json, dev_nw.json); see README.md

CREATE TABLE "backups" (
  "created_at" TIMESTAMP,
  "updated_at" TIMESTAMP,
  "deleted_at" TIMESTAMP,
  "deleted" SMALLINT,
  "id" VARCHAR(36) NOT NULL,
  "volume_id" VARCHAR(36) NOT NULL,
  "user_id" VARCHAR(255),
  "project_id" VARCHAR(255),
  "host" VARCHAR(255),
  "availability_zone" VARCHAR(255),
  "display_name" VARCHAR(255),
  "display_description" VARCHAR(255),
  "container" VARCHAR(255),
  "status" VARCHAR(255),
  "fail_reason" VARCHAR(255),
  "service_metadata" VARCHAR(255),
  "service" VARCHAR(255),
  "size" INTEGER,
  "object_count" INTEGER,
  "parent_id" VARCHAR(36),
  "temp_volume_id" VARCHAR(36),
  "temp_snapshot_id" VARCHAR(36),
  "num_dependent_backups" INTEGER,
  "snapshot_id" VARCHAR(36),
  "data_timestamp" TIMESTAMP,
  "restore_volume_id" VARCHAR(36),
  PRIMARY KEY ("id")
);

CREATE TABLE "cgsnapshots" (
  "created_at" TIMESTAMP,
  "updated_at" TIMESTAMP,
  "deleted_at" TIMESTAMP,
  "deleted" SMALLINT,
  "id" VARCHAR(36) NOT NULL,
  "consistencygroup_id" VARCHAR(36) NOT NULL,
  "user_id" VARCHAR(255),
  "project_id" VARCHAR(255),
  "name" VARCHAR(255),
  "description" VARCHAR(255),
  "status" VARCHAR(255),
  PRIMARY KEY ("id")
);

CREATE TABLE "consistencygroups" (
  "created_at" TIMESTAMP,
  "updated_at" TIMESTAMP,
  "deleted_at" TIMESTAMP,
  "deleted" SMALLINT,
  "id" VARCHAR(36) NOT NULL,
  "user_id" VARCHAR(255),
  "project_id" VARCHAR(255),
  "host" VARCHAR(255),
  "availability_zone" VARCHAR(255),
  "name" VARCHAR(255),
  "description" VARCHAR(255),
  "volume_type_id" VARCHAR(255),
  "status" VARCHAR(255),
  "cgsnapshot_id" VARCHAR(36),
  "source_cgid" VARCHAR(36),
  PRIMARY KEY ("id")
);

CREATE TABLE "driver_initiator_data" (
  "created_at" TIMESTAMP,
  "updated_at" TIMESTAMP,
  "id" INTEGER NOT NULL,
  "initiator" VARCHAR(255) NOT NULL,
  "namespace" VARCHAR(255) NOT NULL,
  "key" VARCHAR(255) NOT NULL,
  "value" VARCHAR(255),
  PRIMARY KEY ("id")
);

CREATE TABLE "encryption" (
  "created_at" TIMESTAMP,
  "updated_at" TIMESTAMP,
  "deleted_at" TIMESTAMP,
  "deleted" SMALLINT,
  "cipher" VARCHAR(255),
  "control_location" VARCHAR(255) NOT NULL,
  "key_size" INTEGER,
  "provider" VARCHAR(255) NOT NULL,
  "volume_type_id" VARCHAR(36) NOT NULL,
  "encryption_id" VARCHAR(36) NOT NULL,
  PRIMARY KEY ("encryption_id")
);

CREATE TABLE "image_volume_cache_entries" (
  "image_updated_at" TIMESTAMP,
  "id" INTEGER NOT NULL,
  "host" VARCHAR(255) NOT NULL,
  "image_id" VARCHAR(36) NOT NULL,
  "volume_id" VARCHAR(36) NOT NULL,
  "size" INTEGER NOT NULL,
  "last_used" TIMESTAMP NOT NULL,
  PRIMARY KEY ("id")
);

CREATE TABLE "iscsi_targets" (
  "created_at" TIMESTAMP,
  "updated_at" TIMESTAMP,
  "deleted_at" TIMESTAMP,
  "deleted" SMALLINT,
  "id" INTEGER NOT NULL,
  "target_num" INTEGER,
  "host" VARCHAR(255),
  "volume_id" VARCHAR(36),
  PRIMARY KEY ("id")
);

CREATE TABLE "migrate_version" (
  "repository_id" VARCHAR(250) NOT NULL,
  "repository_path" TEXT,
  "version" INTEGER,
  PRIMARY KEY ("repository_id")
);

CREATE TABLE "quality_of_service_specs" (
  "created_at" TIMESTAMP,
  "updated_at" TIMESTAMP,
  "deleted_at" TIMESTAMP,
  "deleted" SMALLINT,
  "id" VARCHAR(36) NOT NULL,
  "specs_id" VARCHAR(36),
  "key" VARCHAR(255),
  "value" VARCHAR(255),
  PRIMARY KEY ("id")
);

CREATE TABLE "quota_classes" (
  "created_at" TIMESTAMP,
  "updated_at" TIMESTAMP,
  "deleted_at" TIMESTAMP,
  "deleted" SMALLINT,
  "id" INTEGER NOT NULL,
  "class_name" VARCHAR(255),
  "resource" VARCHAR(255),
  "hard_limit" INTEGER,
  PRIMARY KEY ("id")
);

CREATE TABLE "quota_usages" (
  "created_at" TIMESTAMP,
  "updated_at" TIMESTAMP,
  "deleted_at" TIMESTAMP,
  "deleted" SMALLINT,
  "id" INTEGER NOT NULL,
  "project_id" VARCHAR(255),
  "resource" VARCHAR(255),
  "in_use" INTEGER NOT NULL,
  "reserved" INTEGER NOT NULL,
  "until_refresh" INTEGER,
  PRIMARY KEY ("id")
);

CREATE TABLE "quotas" (
  "id" INTEGER NOT NULL,
  "created_at" TIMESTAMP,
  "updated_at" TIMESTAMP,
  "deleted_at" TIMESTAMP,
  "deleted" SMALLINT,
  "project_id" VARCHAR(255),
  "resource" VARCHAR(255) NOT NULL,
  "hard_limit" INTEGER,
  "allocated" INTEGER,
  PRIMARY KEY ("id")
);

CREATE TABLE "reservations" (
  "created_at" TIMESTAMP,
  "updated_at" TIMESTAMP,
  "deleted_at" TIMESTAMP,
  "deleted" SMALLINT,
  "id" INTEGER NOT NULL,
  "uuid" VARCHAR(36) NOT NULL,
  "usage_id" INTEGER,
  "project_id" VARCHAR(255),
  "resource" VARCHAR(255),
  "delta" INTEGER NOT NULL,
  "expire" TIMESTAMP,
  "allocated_id" INTEGER,
  PRIMARY KEY ("id")
);

CREATE TABLE "services" (
  "created_at" TIMESTAMP,
  "updated_at" TIMESTAMP,
  "deleted_at" TIMESTAMP,
  "deleted" SMALLINT,
  "id" INTEGER NOT NULL,
  "host" VARCHAR(255),
  "binary" VARCHAR(255),
  "topic" VARCHAR(255),
  "report_count" INTEGER NOT NULL,
  "disabled" SMALLINT,
  "availability_zone" VARCHAR(255),
  "disabled_reason" VARCHAR(255),
  "modified_at" TIMESTAMP,
  "rpc_current_version" VARCHAR(36),
  "rpc_available_version" VARCHAR(36),
  "object_current_version" VARCHAR(36),
  "object_available_version" VARCHAR(36),
  "replication_status" VARCHAR(36),
  "frozen" SMALLINT,
  "active_backend_id" VARCHAR(255),
  PRIMARY KEY ("id")
);

CREATE TABLE "snapshot_metadata" (
  "created_at" TIMESTAMP,
  "updated_at" TIMESTAMP,
  "deleted_at" TIMESTAMP,
  "deleted" SMALLINT,
  "id" INTEGER NOT NULL,
  "snapshot_id" VARCHAR(36) NOT NULL,
  "key" VARCHAR(255),
  "value" VARCHAR(255),
  PRIMARY KEY ("id")
);

CREATE TABLE "snapshots" (
  "created_at" TIMESTAMP,
  "updated_at" TIMESTAMP,
  "deleted_at" TIMESTAMP,
  "deleted" SMALLINT,
  "id" VARCHAR(36) NOT NULL,
  "volume_id" VARCHAR(36) NOT NULL,
  "user_id" VARCHAR(255),
  "project_id" VARCHAR(255),
  "status" VARCHAR(255),
  "progress" VARCHAR(255),
  "volume_size" INTEGER,
  "scheduled_at" TIMESTAMP,
  "display_name" VARCHAR(255),
  "display_description" VARCHAR(255),
  "provider_location" VARCHAR(255),
  "encryption_key_id" VARCHAR(36),
  "volume_type_id" VARCHAR(36),
  "cgsnapshot_id" VARCHAR(36),
  "provider_id" VARCHAR(255),
  "provider_auth" VARCHAR(255),
  PRIMARY KEY ("id")
);

CREATE TABLE "transfers" (
  "created_at" TIMESTAMP,
  "updated_at" TIMESTAMP,
  "deleted_at" TIMESTAMP,
  "deleted" SMALLINT,
  "id" VARCHAR(36) NOT NULL,
  "volume_id" VARCHAR(36) NOT NULL,
  "display_name" VARCHAR(255),
  "salt" VARCHAR(255),
  "crypt_hash" VARCHAR(255),
  "expires_at" TIMESTAMP,
  PRIMARY KEY ("id")
);

CREATE TABLE "volume_admin_metadata" (
  "created_at" TIMESTAMP,
  "updated_at" TIMESTAMP,
  "deleted_at" TIMESTAMP,
  "deleted" SMALLINT,
  "id" INTEGER NOT NULL,
  "volume_id" VARCHAR(36) NOT NULL,
  "key" VARCHAR(255),
  "value" VARCHAR(255),
  PRIMARY KEY ("id")
);

CREATE TABLE "volume_attachment" (
  "created_at" TIMESTAMP,
  "updated_at" TIMESTAMP,
  "deleted_at" TIMESTAMP,
  "deleted" SMALLINT,
  "id" VARCHAR(36) NOT NULL,
  "volume_id" VARCHAR(36) NOT NULL,
  "attached_host" VARCHAR(255),
  "instance_uuid" VARCHAR(36),
  "mountpoint" VARCHAR(255),
  "attach_time" TIMESTAMP,
  "detach_time" TIMESTAMP,
  "attach_mode" VARCHAR(36),
  "attach_status" VARCHAR(255),
  PRIMARY KEY ("id")
);

CREATE TABLE "volume_glance_metadata" (
  "created_at" TIMESTAMP,
  "updated_at" TIMESTAMP,
  "deleted_at" TIMESTAMP,
  "deleted" SMALLINT,
  "id" INTEGER NOT NULL,
  "volume_id" VARCHAR(36),
  "snapshot_id" VARCHAR(36),
  "key" VARCHAR(255),
  "value" TEXT,
  PRIMARY KEY ("id")
);

CREATE TABLE "volume_metadata" (
  "created_at" TIMESTAMP,
  "updated_at" TIMESTAMP,
  "deleted_at" TIMESTAMP,
  "deleted" SMALLINT,
  "id" INTEGER NOT NULL,
  "volume_id" VARCHAR(36) NOT NULL,
  "key" VARCHAR(255),
  "value" VARCHAR(255),
  PRIMARY KEY ("id")
);

CREATE TABLE "volume_type_extra_specs" (
  "created_at" TIMESTAMP,
  "updated_at" TIMESTAMP,
  "deleted_at" TIMESTAMP,
  "deleted" SMALLINT,
  "id" INTEGER NOT NULL,
  "volume_type_id" VARCHAR(36) NOT NULL,
  "key" VARCHAR(255),
  "value" VARCHAR(255),
  PRIMARY KEY ("id")
);

CREATE TABLE "volume_type_projects" (
  "id" INTEGER NOT NULL,
  "created_at" TIMESTAMP,
  "updated_at" TIMESTAMP,
  "deleted_at" TIMESTAMP,
  "volume_type_id" VARCHAR(36),
  "project_id" VARCHAR(255),
  "deleted" INTEGER,
  PRIMARY KEY ("id")
);

CREATE TABLE "volume_types" (
  "created_at" TIMESTAMP,
  "updated_at" TIMESTAMP,
  "deleted_at" TIMESTAMP,
  "deleted" SMALLINT,
  "id" VARCHAR(36) NOT NULL,
  "name" VARCHAR(255),
  "qos_specs_id" VARCHAR(36),
  "is_public" SMALLINT,
  "description" VARCHAR(255),
  PRIMARY KEY ("id")
);

CREATE TABLE "volumes" (
  "created_at" TIMESTAMP,
  "updated_at" TIMESTAMP,
  "deleted_at" TIMESTAMP,
  "deleted" SMALLINT,
  "id" VARCHAR(36) NOT NULL,
  "ec2_id" VARCHAR(255),
  "user_id" VARCHAR(255),
  "project_id" VARCHAR(255),
  "host" VARCHAR(255),
  "size" INTEGER,
  "availability_zone" VARCHAR(255),
  "status" VARCHAR(255),
  "attach_status" VARCHAR(255),
  "scheduled_at" TIMESTAMP,
  "launched_at" TIMESTAMP,
  "terminated_at" TIMESTAMP,
  "display_name" VARCHAR(255),
  "display_description" VARCHAR(255),
  "provider_location" VARCHAR(256),
  "provider_auth" VARCHAR(256),
  "snapshot_id" VARCHAR(36),
  "volume_type_id" VARCHAR(36),
  "source_volid" VARCHAR(36),
  "bootable" SMALLINT,
  "provider_geometry" VARCHAR(255),
  "_name_id" VARCHAR(36),
  "encryption_key_id" VARCHAR(36),
  "migration_status" VARCHAR(255),
  "replication_status" VARCHAR(255),
  "replication_extended_status" VARCHAR(255),
  "replication_driver_data" VARCHAR(255),
  "consistencygroup_id" VARCHAR(36),
  "provider_id" VARCHAR(255),
  "multiattach" SMALLINT,
  "previous_status" VARCHAR(255),
  PRIMARY KEY ("id")
);

ALTER TABLE "cgsnapshots" ADD FOREIGN KEY ("consistencygroup_id") REFERENCES "consistencygroups" ("id");
ALTER TABLE "iscsi_targets" ADD FOREIGN KEY ("volume_id") REFERENCES "volumes" ("id");
ALTER TABLE "quality_of_service_specs" ADD FOREIGN KEY ("specs_id") REFERENCES "quality_of_service_specs" ("id");
ALTER TABLE "reservations" ADD FOREIGN KEY ("usage_id") REFERENCES "quota_usages" ("id");
ALTER TABLE "reservations" ADD FOREIGN KEY ("allocated_id") REFERENCES "quotas" ("id");
ALTER TABLE "snapshot_metadata" ADD FOREIGN KEY ("snapshot_id") REFERENCES "snapshots" ("id");
ALTER TABLE "snapshots" ADD FOREIGN KEY ("cgsnapshot_id") REFERENCES "cgsnapshots" ("id");
ALTER TABLE "snapshots" ADD FOREIGN KEY ("volume_id") REFERENCES "volumes" ("id");
ALTER TABLE "transfers" ADD FOREIGN KEY ("volume_id") REFERENCES "volumes" ("id");
ALTER TABLE "volume_admin_metadata" ADD FOREIGN KEY ("volume_id") REFERENCES "volumes" ("id");
ALTER TABLE "volume_attachment" ADD FOREIGN KEY ("volume_id") REFERENCES "volumes" ("id");
ALTER TABLE "volume_glance_metadata" ADD FOREIGN KEY ("volume_id") REFERENCES "volumes" ("id");
ALTER TABLE "volume_glance_metadata" ADD FOREIGN KEY ("snapshot_id") REFERENCES "snapshots" ("id");
ALTER TABLE "volume_metadata" ADD FOREIGN KEY ("volume_id") REFERENCES "volumes" ("id");
ALTER TABLE "volume_type_extra_specs" ADD FOREIGN KEY ("volume_type_id") REFERENCES "volume_types" ("id");
ALTER TABLE "volume_type_projects" ADD FOREIGN KEY ("volume_type_id") REFERENCES "volume_types" ("id");
ALTER TABLE "volume_types" ADD FOREIGN KEY ("qos_specs_id") REFERENCES "quality_of_service_specs" ("id");
ALTER TABLE "volumes" ADD FOREIGN KEY ("consistencygroup_id") REFERENCES "consistencygroups" ("id");
