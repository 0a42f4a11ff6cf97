-- beaver_csail_stata_nova: derived by build.py from peterbaile/beaver (dev_tables.json, dw_join_keys.json, dev_dw.json, dev_nw.json); see README.md

CREATE TABLE "agent_builds" (
  "created_at" TIMESTAMP,
  "updated_at" TIMESTAMP,
  "deleted_at" TIMESTAMP,
  "id" INTEGER NOT NULL,
  "hypervisor" VARCHAR(255),
  "os" VARCHAR(255),
  "architecture" VARCHAR(255),
  "version" VARCHAR(255),
  "url" VARCHAR(255),
  "md5hash" VARCHAR(255),
  "deleted" INTEGER,
  PRIMARY KEY ("id")
);

CREATE TABLE "aggregate_hosts" (
  "created_at" TIMESTAMP,
  "updated_at" TIMESTAMP,
  "deleted_at" TIMESTAMP,
  "id" INTEGER NOT NULL,
  "host" VARCHAR(255),
  "aggregate_id" INTEGER NOT NULL,
  "deleted" INTEGER,
  PRIMARY KEY ("id")
);

CREATE TABLE "aggregate_metadata" (
  "created_at" TIMESTAMP,
  "updated_at" TIMESTAMP,
  "deleted_at" TIMESTAMP,
  "id" INTEGER NOT NULL,
  "aggregate_id" INTEGER NOT NULL,
  "key" VARCHAR(255) NOT NULL,
  "value" VARCHAR(255) NOT NULL,
  "deleted" INTEGER,
  PRIMARY KEY ("id")
);

CREATE TABLE "aggregates" (
  "created_at" TIMESTAMP,
  "updated_at" TIMESTAMP,
  "deleted_at" TIMESTAMP,
  "id" INTEGER NOT NULL,
  "name" VARCHAR(255),
  "deleted" INTEGER,
  "uuid" VARCHAR(36),
  PRIMARY KEY ("id")
);

CREATE TABLE "allocations" (
  "id" INTEGER NOT NULL,
  "resource_provider_id" INTEGER NOT NULL,
  "consumer_id" VARCHAR(36) NOT NULL,
  "resource_class_id" INTEGER NOT NULL,
  "used" INTEGER NOT NULL,
  PRIMARY KEY ("id")
);

CREATE TABLE "block_device_mapping" (
  "created_at" TIMESTAMP,
  "updated_at" TIMESTAMP,
  "deleted_at" TIMESTAMP,
  "id" INTEGER NOT NULL,
  "device_name" VARCHAR(255),
  "delete_on_termination" SMALLINT,
  "snapshot_id" VARCHAR(36),
  "volume_id" VARCHAR(36),
  "volume_size" INTEGER,
  "no_device" SMALLINT,
  "connection_info" TEXT,
  "instance_uuid" VARCHAR(36),
  "deleted" INTEGER,
  "source_type" VARCHAR(255),
  "destination_type" VARCHAR(255),
  "guest_format" VARCHAR(255),
  "device_type" VARCHAR(255),
  "disk_bus" VARCHAR(255),
  "boot_index" INTEGER,
  "image_id" VARCHAR(36),
  PRIMARY KEY ("id")
);

CREATE TABLE "bw_usage_cache" (
  "created_at" TIMESTAMP,
  "updated_at" TIMESTAMP,
  "deleted_at" TIMESTAMP,
  "id" INTEGER NOT NULL,
  "start_period" TIMESTAMP NOT NULL,
  "last_refreshed" TIMESTAMP,
  "bw_in" BIGINT,
  "bw_out" BIGINT,
  "mac" VARCHAR(255),
  "uuid" VARCHAR(36),
  "last_ctr_in" BIGINT,
  "last_ctr_out" BIGINT,
  "deleted" INTEGER,
  PRIMARY KEY ("id")
);

CREATE TABLE "cells" (
  "created_at" TIMESTAMP,
  "updated_at" TIMESTAMP,
  "deleted_at" TIMESTAMP,
  "id" INTEGER NOT NULL,
  "api_url" VARCHAR(255),
  "weight_offset" DOUBLE PRECISION,
  "weight_scale" DOUBLE PRECISION,
  "name" VARCHAR(255),
  "is_parent" SMALLINT,
  "deleted" INTEGER,
  "transport_url" VARCHAR(255) NOT NULL,
  PRIMARY KEY ("id")
);

CREATE TABLE "certificates" (
  "created_at" TIMESTAMP,
  "updated_at" TIMESTAMP,
  "deleted_at" TIMESTAMP,
  "id" INTEGER NOT NULL,
  "user_id" VARCHAR(255),
  "project_id" VARCHAR(255),
  "file_name" VARCHAR(255),
  "deleted" INTEGER,
  PRIMARY KEY ("id")
);

CREATE TABLE "compute_nodes" (
  "created_at" TIMESTAMP,
  "updated_at" TIMESTAMP,
  "deleted_at" TIMESTAMP,
  "id" INTEGER NOT NULL,
  "service_id" INTEGER,
  "vcpus" INTEGER NOT NULL,
  "memory_mb" INTEGER NOT NULL,
  "local_gb" INTEGER NOT NULL,
  "vcpus_used" INTEGER NOT NULL,
  "memory_mb_used" INTEGER NOT NULL,
  "local_gb_used" INTEGER NOT NULL,
  "hypervisor_type" TEXT NOT NULL,
  "hypervisor_version" INTEGER NOT NULL,
  "cpu_info" TEXT NOT NULL,
  "disk_available_least" INTEGER,
  "free_ram_mb" INTEGER,
  "free_disk_gb" INTEGER,
  "current_workload" INTEGER,
  "running_vms" INTEGER,
  "hypervisor_hostname" VARCHAR(255),
  "deleted" INTEGER,
  "host_ip" VARCHAR(39),
  "supported_instances" TEXT,
  "pci_stats" TEXT,
  "metrics" TEXT,
  "extra_resources" TEXT,
  "stats" TEXT,
  "numa_topology" TEXT,
  "host" VARCHAR(255),
  "ram_allocation_ratio" DOUBLE PRECISION,
  "cpu_allocation_ratio" DOUBLE PRECISION,
  "uuid" VARCHAR(36),
  "disk_allocation_ratio" DOUBLE PRECISION,
  PRIMARY KEY ("id")
);

CREATE TABLE "console_pools" (
  "created_at" TIMESTAMP,
  "updated_at" TIMESTAMP,
  "deleted_at" TIMESTAMP,
  "id" INTEGER NOT NULL,
  "address" VARCHAR(39),
  "username" VARCHAR(255),
  "password" VARCHAR(255),
  "console_type" VARCHAR(255),
  "public_hostname" VARCHAR(255),
  "host" VARCHAR(255),
  "compute_host" VARCHAR(255),
  "deleted" INTEGER,
  PRIMARY KEY ("id")
);

CREATE TABLE "consoles" (
  "created_at" TIMESTAMP,
  "updated_at" TIMESTAMP,
  "deleted_at" TIMESTAMP,
  "id" INTEGER NOT NULL,
  "instance_name" VARCHAR(255),
  "password" VARCHAR(255),
  "port" INTEGER,
  "pool_id" INTEGER,
  "instance_uuid" VARCHAR(36),
  "deleted" INTEGER,
  PRIMARY KEY ("id")
);

CREATE TABLE "dns_domains" (
  "created_at" TIMESTAMP,
  "updated_at" TIMESTAMP,
  "deleted_at" TIMESTAMP,
  "deleted" SMALLINT,
  "domain" VARCHAR(255) NOT NULL,
  "scope" VARCHAR(255),
  "availability_zone" VARCHAR(255),
  "project_id" VARCHAR(255),
  PRIMARY KEY ("domain")
);

CREATE TABLE "fixed_ips" (
  "created_at" TIMESTAMP,
  "updated_at" TIMESTAMP,
  "deleted_at" TIMESTAMP,
  "id" INTEGER NOT NULL,
  "address" VARCHAR(39),
  "network_id" INTEGER,
  "allocated" SMALLINT,
  "leased" SMALLINT,
  "reserved" SMALLINT,
  "virtual_interface_id" INTEGER,
  "host" VARCHAR(255),
  "instance_uuid" VARCHAR(36),
  "deleted" INTEGER,
  PRIMARY KEY ("id")
);

CREATE TABLE "floating_ips" (
  "created_at" TIMESTAMP,
  "updated_at" TIMESTAMP,
  "deleted_at" TIMESTAMP,
  "id" INTEGER NOT NULL,
  "address" VARCHAR(39),
  "fixed_ip_id" INTEGER,
  "project_id" VARCHAR(255),
  "host" VARCHAR(255),
  "auto_assigned" SMALLINT,
  "pool" VARCHAR(255),
  "interface" VARCHAR(255),
  "deleted" INTEGER,
  PRIMARY KEY ("id")
);

CREATE TABLE "instance_actions" (
  "created_at" TIMESTAMP,
  "updated_at" TIMESTAMP,
  "deleted_at" TIMESTAMP,
  "id" INTEGER NOT NULL,
  "action" VARCHAR(255),
  "instance_uuid" VARCHAR(36),
  "request_id" VARCHAR(255),
  "user_id" VARCHAR(255),
  "project_id" VARCHAR(255),
  "start_time" TIMESTAMP,
  "finish_time" TIMESTAMP,
  "message" VARCHAR(255),
  "deleted" INTEGER,
  PRIMARY KEY ("id")
);

CREATE TABLE "instance_actions_events" (
  "created_at" TIMESTAMP,
  "updated_at" TIMESTAMP,
  "deleted_at" TIMESTAMP,
  "id" INTEGER NOT NULL,
  "event" VARCHAR(255),
  "action_id" INTEGER,
  "start_time" TIMESTAMP,
  "finish_time" TIMESTAMP,
  "result" VARCHAR(255),
  "traceback" TEXT,
  "deleted" INTEGER,
  "host" VARCHAR(255),
  "details" TEXT,
  PRIMARY KEY ("id")
);

CREATE TABLE "instance_extra" (
  "created_at" TIMESTAMP,
  "updated_at" TIMESTAMP,
  "deleted_at" TIMESTAMP,
  "deleted" INTEGER,
  "id" INTEGER NOT NULL,
  "instance_uuid" VARCHAR(36) NOT NULL,
  "numa_topology" TEXT,
  "pci_requests" TEXT,
  "flavor" TEXT,
  "vcpu_model" TEXT,
  "migration_context" TEXT,
  PRIMARY KEY ("id")
);

CREATE TABLE "instance_faults" (
  "created_at" TIMESTAMP,
  "updated_at" TIMESTAMP,
  "deleted_at" TIMESTAMP,
  "id" INTEGER NOT NULL,
  "instance_uuid" VARCHAR(36),
  "code" INTEGER NOT NULL,
  "message" VARCHAR(255),
  "details" TEXT,
  "host" VARCHAR(255),
  "deleted" INTEGER,
  PRIMARY KEY ("id")
);

CREATE TABLE "instance_group_member" (
  "created_at" TIMESTAMP,
  "updated_at" TIMESTAMP,
  "deleted_at" TIMESTAMP,
  "deleted" INTEGER,
  "id" INTEGER NOT NULL,
  "instance_id" VARCHAR(255),
  "group_id" INTEGER NOT NULL,
  PRIMARY KEY ("id")
);

CREATE TABLE "instance_group_policy" (
  "created_at" TIMESTAMP,
  "updated_at" TIMESTAMP,
  "deleted_at" TIMESTAMP,
  "deleted" INTEGER,
  "id" INTEGER NOT NULL,
  "policy" VARCHAR(255),
  "group_id" INTEGER NOT NULL,
  PRIMARY KEY ("id")
);

CREATE TABLE "instance_groups" (
  "created_at" TIMESTAMP,
  "updated_at" TIMESTAMP,
  "deleted_at" TIMESTAMP,
  "deleted" INTEGER,
  "id" INTEGER NOT NULL,
  "user_id" VARCHAR(255),
  "project_id" VARCHAR(255),
  "uuid" VARCHAR(36) NOT NULL,
  "name" VARCHAR(255),
  PRIMARY KEY ("id")
);

CREATE TABLE "instance_id_mappings" (
  "created_at" TIMESTAMP,
  "updated_at" TIMESTAMP,
  "deleted_at" TIMESTAMP,
  "id" INTEGER NOT NULL,
  "uuid" VARCHAR(36) NOT NULL,
  "deleted" INTEGER,
  PRIMARY KEY ("id")
);

CREATE TABLE "instance_info_caches" (
  "created_at" TIMESTAMP,
  "updated_at" TIMESTAMP,
  "deleted_at" TIMESTAMP,
  "id" INTEGER NOT NULL,
  "network_info" TEXT,
  "instance_uuid" VARCHAR(36) NOT NULL,
  "deleted" INTEGER,
  PRIMARY KEY ("id")
);

CREATE TABLE "instance_metadata" (
  "created_at" TIMESTAMP,
  "updated_at" TIMESTAMP,
  "deleted_at" TIMESTAMP,
  "id" INTEGER NOT NULL,
  "key" VARCHAR(255),
  "value" VARCHAR(255),
  "instance_uuid" VARCHAR(36),
  "deleted" INTEGER,
  PRIMARY KEY ("id")
);

CREATE TABLE "instance_system_metadata" (
  "created_at" TIMESTAMP,
  "updated_at" TIMESTAMP,
  "deleted_at" TIMESTAMP,
  "id" INTEGER NOT NULL,
  "instance_uuid" VARCHAR(36) NOT NULL,
  "key" VARCHAR(255) NOT NULL,
  "value" VARCHAR(255),
  "deleted" INTEGER,
  PRIMARY KEY ("id")
);

CREATE TABLE "instance_type_extra_specs" (
  "created_at" TIMESTAMP,
  "updated_at" TIMESTAMP,
  "deleted_at" TIMESTAMP,
  "id" INTEGER NOT NULL,
  "instance_type_id" INTEGER NOT NULL,
  "key" VARCHAR(255),
  "value" VARCHAR(255),
  "deleted" INTEGER,
  PRIMARY KEY ("id")
);

CREATE TABLE "instance_type_projects" (
  "created_at" TIMESTAMP,
  "updated_at" TIMESTAMP,
  "deleted_at" TIMESTAMP,
  "id" INTEGER NOT NULL,
  "instance_type_id" INTEGER NOT NULL,
  "project_id" VARCHAR(255),
  "deleted" INTEGER,
  PRIMARY KEY ("id")
);

CREATE TABLE "instance_types" (
  "created_at" TIMESTAMP,
  "updated_at" TIMESTAMP,
  "deleted_at" TIMESTAMP,
  "name" VARCHAR(255),
  "id" INTEGER NOT NULL,
  "memory_mb" INTEGER NOT NULL,
  "vcpus" INTEGER NOT NULL,
  "swap" INTEGER NOT NULL,
  "vcpu_weight" INTEGER,
  "flavorid" VARCHAR(255),
  "rxtx_factor" DOUBLE PRECISION,
  "root_gb" INTEGER,
  "ephemeral_gb" INTEGER,
  "disabled" SMALLINT,
  "is_public" SMALLINT,
  "deleted" INTEGER,
  PRIMARY KEY ("id")
);

CREATE TABLE "instances" (
  "created_at" TIMESTAMP,
  "updated_at" TIMESTAMP,
  "deleted_at" TIMESTAMP,
  "id" INTEGER NOT NULL,
  "internal_id" INTEGER,
  "user_id" VARCHAR(255),
  "project_id" VARCHAR(255),
  "image_ref" VARCHAR(255),
  "kernel_id" VARCHAR(255),
  "ramdisk_id" VARCHAR(255),
  "launch_index" INTEGER,
  "key_name" VARCHAR(255),
  "key_data" TEXT,
  "power_state" INTEGER,
  "vm_state" VARCHAR(255),
  "memory_mb" INTEGER,
  "vcpus" INTEGER,
  "hostname" VARCHAR(255),
  "host" VARCHAR(255),
  "user_data" TEXT,
  "reservation_id" VARCHAR(255),
  "scheduled_at" TIMESTAMP,
  "launched_at" TIMESTAMP,
  "terminated_at" TIMESTAMP,
  "display_name" VARCHAR(255),
  "display_description" VARCHAR(255),
  "availability_zone" VARCHAR(255),
  "locked" SMALLINT,
  "os_type" VARCHAR(255),
  "launched_on" TEXT,
  "instance_type_id" INTEGER,
  "vm_mode" VARCHAR(255),
  "uuid" VARCHAR(36) NOT NULL,
  "architecture" VARCHAR(255),
  "root_device_name" VARCHAR(255),
  "access_ip_v4" VARCHAR(39),
  "access_ip_v6" VARCHAR(39),
  "config_drive" VARCHAR(255),
  "task_state" VARCHAR(255),
  "default_ephemeral_device" VARCHAR(255),
  "default_swap_device" VARCHAR(255),
  "progress" INTEGER,
  "auto_disk_config" SMALLINT,
  "shutdown_terminate" SMALLINT,
  "disable_terminate" SMALLINT,
  "root_gb" INTEGER,
  "ephemeral_gb" INTEGER,
  "cell_name" VARCHAR(255),
  "node" VARCHAR(255),
  "deleted" INTEGER,
  "locked_by" TEXT,
  "cleaned" INTEGER,
  "ephemeral_key_uuid" VARCHAR(36),
  PRIMARY KEY ("id")
);

CREATE TABLE "inventories" (
  "id" INTEGER NOT NULL,
  "resource_provider_id" INTEGER NOT NULL,
  "resource_class_id" INTEGER NOT NULL,
  "total" INTEGER NOT NULL,
  "reserved" INTEGER NOT NULL,
  "min_unit" INTEGER NOT NULL,
  "max_unit" INTEGER NOT NULL,
  "step_size" INTEGER NOT NULL,
  "allocation_ratio" DOUBLE PRECISION NOT NULL,
  PRIMARY KEY ("id")
);

CREATE TABLE "key_pairs" (
  "created_at" TIMESTAMP,
  "updated_at" TIMESTAMP,
  "deleted_at" TIMESTAMP,
  "id" INTEGER NOT NULL,
  "name" VARCHAR(255) NOT NULL,
  "user_id" VARCHAR(255),
  "fingerprint" VARCHAR(255),
  "public_key" TEXT,
  "deleted" INTEGER,
  "type" TEXT NOT NULL,
  PRIMARY KEY ("id")
);

CREATE TABLE "migrate_version" (
  "repository_id" VARCHAR(250) NOT NULL,
  "repository_path" TEXT,
  "version" INTEGER,
  PRIMARY KEY ("repository_id")
);

CREATE TABLE "migrations" (
  "created_at" TIMESTAMP,
  "updated_at" TIMESTAMP,
  "deleted_at" TIMESTAMP,
  "id" INTEGER NOT NULL,
  "source_compute" VARCHAR(255),
  "dest_compute" VARCHAR(255),
  "dest_host" VARCHAR(255),
  "status" VARCHAR(255),
  "instance_uuid" VARCHAR(36),
  "old_instance_type_id" INTEGER,
  "new_instance_type_id" INTEGER,
  "source_node" VARCHAR(255),
  "dest_node" VARCHAR(255),
  "deleted" INTEGER,
  "migration_type" TEXT,
  "hidden" SMALLINT,
  "memory_total" BIGINT,
  "memory_processed" BIGINT,
  "memory_remaining" BIGINT,
  "disk_total" BIGINT,
  "disk_processed" BIGINT,
  "disk_remaining" BIGINT,
  PRIMARY KEY ("id")
);

CREATE TABLE "networks" (
  "created_at" TIMESTAMP,
  "updated_at" TIMESTAMP,
  "deleted_at" TIMESTAMP,
  "id" INTEGER NOT NULL,
  "injected" SMALLINT,
  "cidr" VARCHAR(43),
  "netmask" VARCHAR(39),
  "bridge" VARCHAR(255),
  "gateway" VARCHAR(39),
  "broadcast" VARCHAR(39),
  "dns1" VARCHAR(39),
  "vlan" INTEGER,
  "vpn_public_address" VARCHAR(39),
  "vpn_public_port" INTEGER,
  "vpn_private_address" VARCHAR(39),
  "dhcp_start" VARCHAR(39),
  "project_id" VARCHAR(255),
  "host" VARCHAR(255),
  "cidr_v6" VARCHAR(43),
  "gateway_v6" VARCHAR(39),
  "label" VARCHAR(255),
  "netmask_v6" VARCHAR(39),
  "bridge_interface" VARCHAR(255),
  "multi_host" SMALLINT,
  "dns2" VARCHAR(39),
  "uuid" VARCHAR(36),
  "priority" INTEGER,
  "rxtx_base" INTEGER,
  "deleted" INTEGER,
  "mtu" INTEGER,
  "dhcp_server" VARCHAR(39),
  "enable_dhcp" SMALLINT,
  "share_address" SMALLINT,
  PRIMARY KEY ("id")
);

CREATE TABLE "pci_devices" (
  "created_at" TIMESTAMP,
  "updated_at" TIMESTAMP,
  "deleted_at" TIMESTAMP,
  "deleted" INTEGER,
  "id" INTEGER NOT NULL,
  "compute_node_id" INTEGER NOT NULL,
  "address" VARCHAR(12) NOT NULL,
  "product_id" VARCHAR(4) NOT NULL,
  "vendor_id" VARCHAR(4) NOT NULL,
  "dev_type" VARCHAR(8) NOT NULL,
  "dev_id" VARCHAR(255),
  "label" VARCHAR(255) NOT NULL,
  "status" VARCHAR(36) NOT NULL,
  "extra_info" TEXT,
  "instance_uuid" VARCHAR(36),
  "request_id" VARCHAR(36),
  "numa_node" INTEGER,
  "parent_addr" VARCHAR(12),
  PRIMARY KEY ("id")
);

CREATE TABLE "project_user_quotas" (
  "id" INTEGER NOT NULL,
  "created_at" TIMESTAMP,
  "updated_at" TIMESTAMP,
  "deleted_at" TIMESTAMP,
  "deleted" INTEGER,
  "user_id" VARCHAR(255) NOT NULL,
  "project_id" VARCHAR(255) NOT NULL,
  "resource" VARCHAR(255) NOT NULL,
  "hard_limit" INTEGER,
  PRIMARY KEY ("id")
);

CREATE TABLE "provider_fw_rules" (
  "created_at" TIMESTAMP,
  "updated_at" TIMESTAMP,
  "deleted_at" TIMESTAMP,
  "id" INTEGER NOT NULL,
  "protocol" VARCHAR(5),
  "from_port" INTEGER,
  "to_port" INTEGER,
  "cidr" VARCHAR(43),
  "deleted" INTEGER,
  PRIMARY KEY ("id")
);

CREATE TABLE "quota_classes" (
  "created_at" TIMESTAMP,
  "updated_at" TIMESTAMP,
  "deleted_at" TIMESTAMP,
  "id" INTEGER NOT NULL,
  "class_name" VARCHAR(255),
  "resource" VARCHAR(255),
  "hard_limit" INTEGER,
  "deleted" INTEGER,
  PRIMARY KEY ("id")
);

CREATE TABLE "quota_usages" (
  "created_at" TIMESTAMP,
  "updated_at" TIMESTAMP,
  "deleted_at" TIMESTAMP,
  "id" INTEGER NOT NULL,
  "project_id" VARCHAR(255),
  "resource" VARCHAR(255) NOT NULL,
  "in_use" INTEGER NOT NULL,
  "reserved" INTEGER NOT NULL,
  "until_refresh" INTEGER,
  "deleted" INTEGER,
  "user_id" VARCHAR(255),
  PRIMARY KEY ("id")
);

CREATE TABLE "quotas" (
  "id" INTEGER NOT NULL,
  "created_at" TIMESTAMP,
  "updated_at" TIMESTAMP,
  "deleted_at" TIMESTAMP,
  "project_id" VARCHAR(255),
  "resource" VARCHAR(255) NOT NULL,
  "hard_limit" INTEGER,
  "deleted" INTEGER,
  PRIMARY KEY ("id")
);

CREATE TABLE "reservations" (
  "created_at" TIMESTAMP,
  "updated_at" TIMESTAMP,
  "deleted_at" TIMESTAMP,
  "id" INTEGER NOT NULL,
  "uuid" VARCHAR(36) NOT NULL,
  "usage_id" INTEGER NOT NULL,
  "project_id" VARCHAR(255),
  "resource" VARCHAR(255),
  "delta" INTEGER NOT NULL,
  "expire" TIMESTAMP,
  "deleted" INTEGER,
  "user_id" VARCHAR(255),
  PRIMARY KEY ("id")
);

CREATE TABLE "resource_provider_aggregates" (
  "resource_provider_id" INTEGER NOT NULL,
  "aggregate_id" INTEGER NOT NULL,
  PRIMARY KEY ("aggregate_id", "resource_provider_id")
);

CREATE TABLE "resource_providers" (
  "id" INTEGER NOT NULL,
  "uuid" VARCHAR(36) NOT NULL,
  "name" VARCHAR(200),
  "generation" INTEGER,
  "can_host" INTEGER,
  PRIMARY KEY ("id")
);

CREATE TABLE "s3_images" (
  "created_at" TIMESTAMP,
  "updated_at" TIMESTAMP,
  "deleted_at" TIMESTAMP,
  "id" INTEGER NOT NULL,
  "uuid" VARCHAR(36) NOT NULL,
  "deleted" INTEGER,
  PRIMARY KEY ("id")
);

CREATE TABLE "security_group_default_rules" (
  "created_at" TIMESTAMP,
  "updated_at" TIMESTAMP,
  "deleted_at" TIMESTAMP,
  "deleted" INTEGER,
  "id" INTEGER NOT NULL,
  "protocol" VARCHAR(5),
  "from_port" INTEGER,
  "to_port" INTEGER,
  "cidr" VARCHAR(43),
  PRIMARY KEY ("id")
);

CREATE TABLE "security_group_instance_association" (
  "created_at" TIMESTAMP,
  "updated_at" TIMESTAMP,
  "deleted_at" TIMESTAMP,
  "id" INTEGER NOT NULL,
  "security_group_id" INTEGER,
  "instance_uuid" VARCHAR(36),
  "deleted" INTEGER,
  PRIMARY KEY ("id")
);

CREATE TABLE "security_group_rules" (
  "created_at" TIMESTAMP,
  "updated_at" TIMESTAMP,
  "deleted_at" TIMESTAMP,
  "id" INTEGER NOT NULL,
  "parent_group_id" INTEGER,
  "protocol" VARCHAR(255),
  "from_port" INTEGER,
  "to_port" INTEGER,
  "cidr" VARCHAR(43),
  "group_id" INTEGER,
  "deleted" INTEGER,
  PRIMARY KEY ("id")
);

CREATE TABLE "security_groups" (
  "created_at" TIMESTAMP,
  "updated_at" TIMESTAMP,
  "deleted_at" TIMESTAMP,
  "id" INTEGER NOT NULL,
  "name" VARCHAR(255),
  "description" VARCHAR(255),
  "user_id" VARCHAR(255),
  "project_id" VARCHAR(255),
  "deleted" INTEGER,
  PRIMARY KEY ("id")
);

CREATE TABLE "services" (
  "created_at" TIMESTAMP,
  "updated_at" TIMESTAMP,
  "deleted_at" TIMESTAMP,
  "id" INTEGER NOT NULL,
  "host" VARCHAR(255),
  "binary" VARCHAR(255),
  "topic" VARCHAR(255),
  "report_count" INTEGER NOT NULL,
  "disabled" SMALLINT,
  "deleted" INTEGER,
  "disabled_reason" VARCHAR(255),
  "last_seen_up" TIMESTAMP,
  "forced_down" SMALLINT,
  "version" INTEGER,
  PRIMARY KEY ("id")
);

CREATE TABLE "shadow_agent_builds" (
  "created_at" TIMESTAMP,
  "updated_at" TIMESTAMP,
  "deleted_at" TIMESTAMP,
  "id" INTEGER NOT NULL,
  "hypervisor" VARCHAR(255),
  "os" VARCHAR(255),
  "architecture" VARCHAR(255),
  "version" VARCHAR(255),
  "url" VARCHAR(255),
  "md5hash" VARCHAR(255),
  "deleted" INTEGER,
  PRIMARY KEY ("id")
);

CREATE TABLE "shadow_aggregate_hosts" (
  "created_at" TIMESTAMP,
  "updated_at" TIMESTAMP,
  "deleted_at" TIMESTAMP,
  "id" INTEGER NOT NULL,
  "host" VARCHAR(255),
  "aggregate_id" INTEGER NOT NULL,
  "deleted" INTEGER,
  PRIMARY KEY ("id")
);

CREATE TABLE "shadow_aggregate_metadata" (
  "created_at" TIMESTAMP,
  "updated_at" TIMESTAMP,
  "deleted_at" TIMESTAMP,
  "id" INTEGER NOT NULL,
  "aggregate_id" INTEGER NOT NULL,
  "key" VARCHAR(255) NOT NULL,
  "value" VARCHAR(255) NOT NULL,
  "deleted" INTEGER,
  PRIMARY KEY ("id")
);

CREATE TABLE "shadow_aggregates" (
  "created_at" TIMESTAMP,
  "updated_at" TIMESTAMP,
  "deleted_at" TIMESTAMP,
  "id" INTEGER NOT NULL,
  "name" VARCHAR(255),
  "deleted" INTEGER,
  "uuid" VARCHAR(36),
  PRIMARY KEY ("id")
);

CREATE TABLE "shadow_block_device_mapping" (
  "created_at" TIMESTAMP,
  "updated_at" TIMESTAMP,
  "deleted_at" TIMESTAMP,
  "id" INTEGER NOT NULL,
  "device_name" VARCHAR(255),
  "delete_on_termination" SMALLINT,
  "snapshot_id" VARCHAR(36),
  "volume_id" VARCHAR(36),
  "volume_size" INTEGER,
  "no_device" SMALLINT,
  "connection_info" TEXT,
  "instance_uuid" VARCHAR(36),
  "deleted" INTEGER,
  "source_type" VARCHAR(255),
  "destination_type" VARCHAR(255),
  "guest_format" VARCHAR(255),
  "device_type" VARCHAR(255),
  "disk_bus" VARCHAR(255),
  "boot_index" INTEGER,
  "image_id" VARCHAR(36),
  PRIMARY KEY ("id")
);

CREATE TABLE "shadow_bw_usage_cache" (
  "created_at" TIMESTAMP,
  "updated_at" TIMESTAMP,
  "deleted_at" TIMESTAMP,
  "id" INTEGER NOT NULL,
  "start_period" TIMESTAMP NOT NULL,
  "last_refreshed" TIMESTAMP,
  "bw_in" BIGINT,
  "bw_out" BIGINT,
  "mac" VARCHAR(255),
  "uuid" VARCHAR(36),
  "last_ctr_in" BIGINT,
  "last_ctr_out" BIGINT,
  "deleted" INTEGER,
  PRIMARY KEY ("id")
);

CREATE TABLE "shadow_cells" (
  "created_at" TIMESTAMP,
  "updated_at" TIMESTAMP,
  "deleted_at" TIMESTAMP,
  "id" INTEGER NOT NULL,
  "api_url" VARCHAR(255),
  "weight_offset" DOUBLE PRECISION,
  "weight_scale" DOUBLE PRECISION,
  "name" VARCHAR(255),
  "is_parent" SMALLINT,
  "deleted" INTEGER,
  "transport_url" VARCHAR(255) NOT NULL,
  PRIMARY KEY ("id")
);

CREATE TABLE "shadow_certificates" (
  "created_at" TIMESTAMP,
  "updated_at" TIMESTAMP,
  "deleted_at" TIMESTAMP,
  "id" INTEGER NOT NULL,
  "user_id" VARCHAR(255),
  "project_id" VARCHAR(255),
  "file_name" VARCHAR(255),
  "deleted" INTEGER,
  PRIMARY KEY ("id")
);

CREATE TABLE "shadow_compute_nodes" (
  "created_at" TIMESTAMP,
  "updated_at" TIMESTAMP,
  "deleted_at" TIMESTAMP,
  "id" INTEGER NOT NULL,
  "service_id" INTEGER,
  "vcpus" INTEGER NOT NULL,
  "memory_mb" INTEGER NOT NULL,
  "local_gb" INTEGER NOT NULL,
  "vcpus_used" INTEGER NOT NULL,
  "memory_mb_used" INTEGER NOT NULL,
  "local_gb_used" INTEGER NOT NULL,
  "hypervisor_type" TEXT NOT NULL,
  "hypervisor_version" INTEGER NOT NULL,
  "cpu_info" TEXT NOT NULL,
  "disk_available_least" INTEGER,
  "free_ram_mb" INTEGER,
  "free_disk_gb" INTEGER,
  "current_workload" INTEGER,
  "running_vms" INTEGER,
  "hypervisor_hostname" VARCHAR(255),
  "deleted" INTEGER,
  "host_ip" VARCHAR(39),
  "supported_instances" TEXT,
  "pci_stats" TEXT,
  "metrics" TEXT,
  "extra_resources" TEXT,
  "stats" TEXT,
  "numa_topology" TEXT,
  "host" VARCHAR(255),
  "ram_allocation_ratio" DOUBLE PRECISION,
  "cpu_allocation_ratio" DOUBLE PRECISION,
  "uuid" VARCHAR(36),
  "disk_allocation_ratio" DOUBLE PRECISION,
  PRIMARY KEY ("id")
);

CREATE TABLE "shadow_console_pools" (
  "created_at" TIMESTAMP,
  "updated_at" TIMESTAMP,
  "deleted_at" TIMESTAMP,
  "id" INTEGER NOT NULL,
  "address" VARCHAR(39),
  "username" VARCHAR(255),
  "password" VARCHAR(255),
  "console_type" VARCHAR(255),
  "public_hostname" VARCHAR(255),
  "host" VARCHAR(255),
  "compute_host" VARCHAR(255),
  "deleted" INTEGER,
  PRIMARY KEY ("id")
);

CREATE TABLE "shadow_consoles" (
  "created_at" TIMESTAMP,
  "updated_at" TIMESTAMP,
  "deleted_at" TIMESTAMP,
  "id" INTEGER NOT NULL,
  "instance_name" VARCHAR(255),
  "password" VARCHAR(255),
  "port" INTEGER,
  "pool_id" INTEGER,
  "instance_uuid" VARCHAR(36),
  "deleted" INTEGER,
  PRIMARY KEY ("id")
);

CREATE TABLE "shadow_dns_domains" (
  "created_at" TIMESTAMP,
  "updated_at" TIMESTAMP,
  "deleted_at" TIMESTAMP,
  "deleted" SMALLINT,
  "domain" VARCHAR(255) NOT NULL,
  "scope" VARCHAR(255),
  "availability_zone" VARCHAR(255),
  "project_id" VARCHAR(255),
  PRIMARY KEY ("domain")
);

CREATE TABLE "shadow_fixed_ips" (
  "created_at" TIMESTAMP,
  "updated_at" TIMESTAMP,
  "deleted_at" TIMESTAMP,
  "id" INTEGER NOT NULL,
  "address" VARCHAR(39),
  "network_id" INTEGER,
  "allocated" SMALLINT,
  "leased" SMALLINT,
  "reserved" SMALLINT,
  "virtual_interface_id" INTEGER,
  "host" VARCHAR(255),
  "instance_uuid" VARCHAR(36),
  "deleted" INTEGER,
  PRIMARY KEY ("id")
);

CREATE TABLE "shadow_floating_ips" (
  "created_at" TIMESTAMP,
  "updated_at" TIMESTAMP,
  "deleted_at" TIMESTAMP,
  "id" INTEGER NOT NULL,
  "address" VARCHAR(39),
  "fixed_ip_id" INTEGER,
  "project_id" VARCHAR(255),
  "host" VARCHAR(255),
  "auto_assigned" SMALLINT,
  "pool" VARCHAR(255),
  "interface" VARCHAR(255),
  "deleted" INTEGER,
  PRIMARY KEY ("id")
);

CREATE TABLE "shadow_instance_actions" (
  "created_at" TIMESTAMP,
  "updated_at" TIMESTAMP,
  "deleted_at" TIMESTAMP,
  "id" INTEGER NOT NULL,
  "action" VARCHAR(255),
  "instance_uuid" VARCHAR(36),
  "request_id" VARCHAR(255),
  "user_id" VARCHAR(255),
  "project_id" VARCHAR(255),
  "start_time" TIMESTAMP,
  "finish_time" TIMESTAMP,
  "message" VARCHAR(255),
  "deleted" INTEGER,
  PRIMARY KEY ("id")
);

CREATE TABLE "shadow_instance_actions_events" (
  "created_at" TIMESTAMP,
  "updated_at" TIMESTAMP,
  "deleted_at" TIMESTAMP,
  "id" INTEGER NOT NULL,
  "event" VARCHAR(255),
  "action_id" INTEGER,
  "start_time" TIMESTAMP,
  "finish_time" TIMESTAMP,
  "result" VARCHAR(255),
  "traceback" TEXT,
  "deleted" INTEGER,
  "host" VARCHAR(255),
  "details" TEXT,
  PRIMARY KEY ("id")
);

CREATE TABLE "shadow_instance_extra" (
  "created_at" TIMESTAMP,
  "updated_at" TIMESTAMP,
  "deleted_at" TIMESTAMP,
  "deleted" INTEGER,
  "id" INTEGER NOT NULL,
  "instance_uuid" VARCHAR(36) NOT NULL,
  "numa_topology" TEXT,
  "pci_requests" TEXT,
  "flavor" TEXT,
  "vcpu_model" TEXT,
  "migration_context" TEXT,
  PRIMARY KEY ("id")
);

CREATE TABLE "shadow_instance_faults" (
  "created_at" TIMESTAMP,
  "updated_at" TIMESTAMP,
  "deleted_at" TIMESTAMP,
  "id" INTEGER NOT NULL,
  "instance_uuid" VARCHAR(36),
  "code" INTEGER NOT NULL,
  "message" VARCHAR(255),
  "details" TEXT,
  "host" VARCHAR(255),
  "deleted" INTEGER,
  PRIMARY KEY ("id")
);

CREATE TABLE "shadow_instance_group_member" (
  "created_at" TIMESTAMP,
  "updated_at" TIMESTAMP,
  "deleted_at" TIMESTAMP,
  "deleted" INTEGER,
  "id" INTEGER NOT NULL,
  "instance_id" VARCHAR(255),
  "group_id" INTEGER NOT NULL,
  PRIMARY KEY ("id")
);

CREATE TABLE "shadow_instance_group_policy" (
  "created_at" TIMESTAMP,
  "updated_at" TIMESTAMP,
  "deleted_at" TIMESTAMP,
  "deleted" INTEGER,
  "id" INTEGER NOT NULL,
  "policy" VARCHAR(255),
  "group_id" INTEGER NOT NULL,
  PRIMARY KEY ("id")
);

CREATE TABLE "shadow_instance_groups" (
  "created_at" TIMESTAMP,
  "updated_at" TIMESTAMP,
  "deleted_at" TIMESTAMP,
  "deleted" INTEGER,
  "id" INTEGER NOT NULL,
  "user_id" VARCHAR(255),
  "project_id" VARCHAR(255),
  "uuid" VARCHAR(36) NOT NULL,
  "name" VARCHAR(255),
  PRIMARY KEY ("id")
);

CREATE TABLE "shadow_instance_id_mappings" (
  "created_at" TIMESTAMP,
  "updated_at" TIMESTAMP,
  "deleted_at" TIMESTAMP,
  "id" INTEGER NOT NULL,
  "uuid" VARCHAR(36) NOT NULL,
  "deleted" INTEGER,
  PRIMARY KEY ("id")
);

CREATE TABLE "shadow_instance_info_caches" (
  "created_at" TIMESTAMP,
  "updated_at" TIMESTAMP,
  "deleted_at" TIMESTAMP,
  "id" INTEGER NOT NULL,
  "network_info" TEXT,
  "instance_uuid" VARCHAR(36) NOT NULL,
  "deleted" INTEGER,
  PRIMARY KEY ("id")
);

CREATE TABLE "shadow_instance_metadata" (
  "created_at" TIMESTAMP,
  "updated_at" TIMESTAMP,
  "deleted_at" TIMESTAMP,
  "id" INTEGER NOT NULL,
  "key" VARCHAR(255),
  "value" VARCHAR(255),
  "instance_uuid" VARCHAR(36),
  "deleted" INTEGER,
  PRIMARY KEY ("id")
);

CREATE TABLE "shadow_instance_system_metadata" (
  "created_at" TIMESTAMP,
  "updated_at" TIMESTAMP,
  "deleted_at" TIMESTAMP,
  "id" INTEGER NOT NULL,
  "instance_uuid" VARCHAR(36) NOT NULL,
  "key" VARCHAR(255) NOT NULL,
  "value" VARCHAR(255),
  "deleted" INTEGER,
  PRIMARY KEY ("id")
);

CREATE TABLE "shadow_instance_type_extra_specs" (
  "created_at" TIMESTAMP,
  "updated_at" TIMESTAMP,
  "deleted_at" TIMESTAMP,
  "id" INTEGER NOT NULL,
  "instance_type_id" INTEGER NOT NULL,
  "key" VARCHAR(255),
  "value" VARCHAR(255),
  "deleted" INTEGER,
  PRIMARY KEY ("id")
);

CREATE TABLE "shadow_instance_type_projects" (
  "created_at" TIMESTAMP,
  "updated_at" TIMESTAMP,
  "deleted_at" TIMESTAMP,
  "id" INTEGER NOT NULL,
  "instance_type_id" INTEGER NOT NULL,
  "project_id" VARCHAR(255),
  "deleted" INTEGER,
  PRIMARY KEY ("id")
);

CREATE TABLE "shadow_instance_types" (
  "created_at" TIMESTAMP,
  "updated_at" TIMESTAMP,
  "deleted_at" TIMESTAMP,
  "name" VARCHAR(255),
  "id" INTEGER NOT NULL,
  "memory_mb" INTEGER NOT NULL,
  "vcpus" INTEGER NOT NULL,
  "swap" INTEGER NOT NULL,
  "vcpu_weight" INTEGER,
  "flavorid" VARCHAR(255),
  "rxtx_factor" DOUBLE PRECISION,
  "root_gb" INTEGER,
  "ephemeral_gb" INTEGER,
  "disabled" SMALLINT,
  "is_public" SMALLINT,
  "deleted" INTEGER,
  PRIMARY KEY ("id")
);

CREATE TABLE "shadow_instances" (
  "created_at" TIMESTAMP,
  "updated_at" TIMESTAMP,
  "deleted_at" TIMESTAMP,
  "id" INTEGER NOT NULL,
  "internal_id" INTEGER,
  "user_id" VARCHAR(255),
  "project_id" VARCHAR(255),
  "image_ref" VARCHAR(255),
  "kernel_id" VARCHAR(255),
  "ramdisk_id" VARCHAR(255),
  "launch_index" INTEGER,
  "key_name" VARCHAR(255),
  "key_data" TEXT,
  "power_state" INTEGER,
  "vm_state" VARCHAR(255),
  "memory_mb" INTEGER,
  "vcpus" INTEGER,
  "hostname" VARCHAR(255),
  "host" VARCHAR(255),
  "user_data" TEXT,
  "reservation_id" VARCHAR(255),
  "scheduled_at" TIMESTAMP,
  "launched_at" TIMESTAMP,
  "terminated_at" TIMESTAMP,
  "display_name" VARCHAR(255),
  "display_description" VARCHAR(255),
  "availability_zone" VARCHAR(255),
  "locked" SMALLINT,
  "os_type" VARCHAR(255),
  "launched_on" TEXT,
  "instance_type_id" INTEGER,
  "vm_mode" VARCHAR(255),
  "uuid" VARCHAR(36) NOT NULL,
  "architecture" VARCHAR(255),
  "root_device_name" VARCHAR(255),
  "access_ip_v4" VARCHAR(39),
  "access_ip_v6" VARCHAR(39),
  "config_drive" VARCHAR(255),
  "task_state" VARCHAR(255),
  "default_ephemeral_device" VARCHAR(255),
  "default_swap_device" VARCHAR(255),
  "progress" INTEGER,
  "auto_disk_config" SMALLINT,
  "shutdown_terminate" SMALLINT,
  "disable_terminate" SMALLINT,
  "root_gb" INTEGER,
  "ephemeral_gb" INTEGER,
  "cell_name" VARCHAR(255),
  "node" VARCHAR(255),
  "deleted" INTEGER,
  "locked_by" TEXT,
  "cleaned" INTEGER,
  "ephemeral_key_uuid" VARCHAR(36),
  PRIMARY KEY ("id")
);

CREATE TABLE "shadow_key_pairs" (
  "created_at" TIMESTAMP,
  "updated_at" TIMESTAMP,
  "deleted_at" TIMESTAMP,
  "id" INTEGER NOT NULL,
  "name" VARCHAR(255),
  "user_id" VARCHAR(255),
  "fingerprint" VARCHAR(255),
  "public_key" TEXT,
  "deleted" INTEGER,
  "type" TEXT NOT NULL,
  PRIMARY KEY ("id")
);

CREATE TABLE "shadow_migrate_version" (
  "repository_id" VARCHAR(250) NOT NULL,
  "repository_path" TEXT,
  "version" INTEGER,
  PRIMARY KEY ("repository_id")
);

CREATE TABLE "shadow_migrations" (
  "created_at" TIMESTAMP,
  "updated_at" TIMESTAMP,
  "deleted_at" TIMESTAMP,
  "id" INTEGER NOT NULL,
  "source_compute" VARCHAR(255),
  "dest_compute" VARCHAR(255),
  "dest_host" VARCHAR(255),
  "status" VARCHAR(255),
  "instance_uuid" VARCHAR(36),
  "old_instance_type_id" INTEGER,
  "new_instance_type_id" INTEGER,
  "source_node" VARCHAR(255),
  "dest_node" VARCHAR(255),
  "deleted" INTEGER,
  "migration_type" TEXT,
  "hidden" SMALLINT,
  "memory_total" BIGINT,
  "memory_processed" BIGINT,
  "memory_remaining" BIGINT,
  "disk_total" BIGINT,
  "disk_processed" BIGINT,
  "disk_remaining" BIGINT,
  PRIMARY KEY ("id")
);

CREATE TABLE "shadow_networks" (
  "created_at" TIMESTAMP,
  "updated_at" TIMESTAMP,
  "deleted_at" TIMESTAMP,
  "id" INTEGER NOT NULL,
  "injected" SMALLINT,
  "cidr" VARCHAR(43),
  "netmask" VARCHAR(39),
  "bridge" VARCHAR(255),
  "gateway" VARCHAR(39),
  "broadcast" VARCHAR(39),
  "dns1" VARCHAR(39),
  "vlan" INTEGER,
  "vpn_public_address" VARCHAR(39),
  "vpn_public_port" INTEGER,
  "vpn_private_address" VARCHAR(39),
  "dhcp_start" VARCHAR(39),
  "project_id" VARCHAR(255),
  "host" VARCHAR(255),
  "cidr_v6" VARCHAR(43),
  "gateway_v6" VARCHAR(39),
  "label" VARCHAR(255),
  "netmask_v6" VARCHAR(39),
  "bridge_interface" VARCHAR(255),
  "multi_host" SMALLINT,
  "dns2" VARCHAR(39),
  "uuid" VARCHAR(36),
  "priority" INTEGER,
  "rxtx_base" INTEGER,
  "deleted" INTEGER,
  "mtu" INTEGER,
  "dhcp_server" VARCHAR(39),
  "enable_dhcp" SMALLINT,
  "share_address" SMALLINT,
  PRIMARY KEY ("id")
);

CREATE TABLE "shadow_pci_devices" (
  "created_at" TIMESTAMP,
  "updated_at" TIMESTAMP,
  "deleted_at" TIMESTAMP,
  "deleted" INTEGER NOT NULL,
  "id" INTEGER NOT NULL,
  "compute_node_id" INTEGER NOT NULL,
  "address" VARCHAR(12) NOT NULL,
  "product_id" VARCHAR(4),
  "vendor_id" VARCHAR(4),
  "dev_type" VARCHAR(8),
  "dev_id" VARCHAR(255),
  "label" VARCHAR(255) NOT NULL,
  "status" VARCHAR(36) NOT NULL,
  "extra_info" TEXT,
  "instance_uuid" VARCHAR(36),
  "request_id" VARCHAR(36),
  "numa_node" INTEGER,
  "parent_addr" VARCHAR(12),
  PRIMARY KEY ("id")
);

CREATE TABLE "shadow_project_user_quotas" (
  "id" INTEGER NOT NULL,
  "created_at" TIMESTAMP,
  "updated_at" TIMESTAMP,
  "deleted_at" TIMESTAMP,
  "deleted" INTEGER,
  "user_id" VARCHAR(255) NOT NULL,
  "project_id" VARCHAR(255) NOT NULL,
  "resource" VARCHAR(25) NOT NULL,
  "hard_limit" INTEGER,
  PRIMARY KEY ("id")
);

CREATE TABLE "shadow_provider_fw_rules" (
  "created_at" TIMESTAMP,
  "updated_at" TIMESTAMP,
  "deleted_at" TIMESTAMP,
  "id" INTEGER NOT NULL,
  "protocol" VARCHAR(5),
  "from_port" INTEGER,
  "to_port" INTEGER,
  "cidr" VARCHAR(43),
  "deleted" INTEGER,
  PRIMARY KEY ("id")
);

CREATE TABLE "shadow_quota_classes" (
  "created_at" TIMESTAMP,
  "updated_at" TIMESTAMP,
  "deleted_at" TIMESTAMP,
  "id" INTEGER NOT NULL,
  "class_name" VARCHAR(255),
  "resource" VARCHAR(255),
  "hard_limit" INTEGER,
  "deleted" INTEGER,
  PRIMARY KEY ("id")
);

CREATE TABLE "shadow_quota_usages" (
  "created_at" TIMESTAMP,
  "updated_at" TIMESTAMP,
  "deleted_at" TIMESTAMP,
  "id" INTEGER NOT NULL,
  "project_id" VARCHAR(255),
  "resource" VARCHAR(255),
  "in_use" INTEGER NOT NULL,
  "reserved" INTEGER NOT NULL,
  "until_refresh" INTEGER,
  "deleted" INTEGER,
  "user_id" VARCHAR(255),
  PRIMARY KEY ("id")
);

CREATE TABLE "shadow_quotas" (
  "id" INTEGER NOT NULL,
  "created_at" TIMESTAMP,
  "updated_at" TIMESTAMP,
  "deleted_at" TIMESTAMP,
  "project_id" VARCHAR(255),
  "resource" VARCHAR(255) NOT NULL,
  "hard_limit" INTEGER,
  "deleted" INTEGER,
  PRIMARY KEY ("id")
);

CREATE TABLE "shadow_reservations" (
  "created_at" TIMESTAMP,
  "updated_at" TIMESTAMP,
  "deleted_at" TIMESTAMP,
  "id" INTEGER NOT NULL,
  "uuid" VARCHAR(36) NOT NULL,
  "usage_id" INTEGER NOT NULL,
  "project_id" VARCHAR(255),
  "resource" VARCHAR(255),
  "delta" INTEGER NOT NULL,
  "expire" TIMESTAMP,
  "deleted" INTEGER,
  "user_id" VARCHAR(255),
  PRIMARY KEY ("id")
);

CREATE TABLE "shadow_s3_images" (
  "created_at" TIMESTAMP,
  "updated_at" TIMESTAMP,
  "deleted_at" TIMESTAMP,
  "id" INTEGER NOT NULL,
  "uuid" VARCHAR(36) NOT NULL,
  "deleted" INTEGER,
  PRIMARY KEY ("id")
);

CREATE TABLE "shadow_security_group_default_rules" (
  "created_at" TIMESTAMP,
  "updated_at" TIMESTAMP,
  "deleted_at" TIMESTAMP,
  "deleted" INTEGER,
  "id" INTEGER NOT NULL,
  "protocol" VARCHAR(5),
  "from_port" INTEGER,
  "to_port" INTEGER,
  "cidr" VARCHAR(43),
  PRIMARY KEY ("id")
);

CREATE TABLE "shadow_security_group_instance_association" (
  "created_at" TIMESTAMP,
  "updated_at" TIMESTAMP,
  "deleted_at" TIMESTAMP,
  "id" INTEGER NOT NULL,
  "security_group_id" INTEGER,
  "instance_uuid" VARCHAR(36),
  "deleted" INTEGER,
  PRIMARY KEY ("id")
);

CREATE TABLE "shadow_security_group_rules" (
  "created_at" TIMESTAMP,
  "updated_at" TIMESTAMP,
  "deleted_at" TIMESTAMP,
  "id" INTEGER NOT NULL,
  "parent_group_id" INTEGER,
  "protocol" VARCHAR(255),
  "from_port" INTEGER,
  "to_port" INTEGER,
  "cidr" VARCHAR(43),
  "group_id" INTEGER,
  "deleted" INTEGER,
  PRIMARY KEY ("id")
);

CREATE TABLE "shadow_security_groups" (
  "created_at" TIMESTAMP,
  "updated_at" TIMESTAMP,
  "deleted_at" TIMESTAMP,
  "id" INTEGER NOT NULL,
  "name" VARCHAR(255),
  "description" VARCHAR(255),
  "user_id" VARCHAR(255),
  "project_id" VARCHAR(255),
  "deleted" INTEGER,
  PRIMARY KEY ("id")
);

CREATE TABLE "shadow_services" (
  "created_at" TIMESTAMP,
  "updated_at" TIMESTAMP,
  "deleted_at" TIMESTAMP,
  "id" INTEGER NOT NULL,
  "host" VARCHAR(255),
  "binary" VARCHAR(255),
  "topic" VARCHAR(255),
  "report_count" INTEGER NOT NULL,
  "disabled" SMALLINT,
  "deleted" INTEGER,
  "disabled_reason" VARCHAR(255),
  "last_seen_up" TIMESTAMP,
  "forced_down" SMALLINT,
  "version" INTEGER,
  PRIMARY KEY ("id")
);

CREATE TABLE "shadow_snapshot_id_mappings" (
  "created_at" TIMESTAMP,
  "updated_at" TIMESTAMP,
  "deleted_at" TIMESTAMP,
  "id" INTEGER NOT NULL,
  "uuid" VARCHAR(36) NOT NULL,
  "deleted" INTEGER,
  PRIMARY KEY ("id")
);

CREATE TABLE "shadow_snapshots" (
  "created_at" TIMESTAMP,
  "updated_at" TIMESTAMP,
  "deleted_at" TIMESTAMP,
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
  "deleted" VARCHAR(36),
  PRIMARY KEY ("id")
);

CREATE TABLE "shadow_task_log" (
  "created_at" TIMESTAMP,
  "updated_at" TIMESTAMP,
  "deleted_at" TIMESTAMP,
  "id" INTEGER NOT NULL,
  "task_name" VARCHAR(255) NOT NULL,
  "state" VARCHAR(255) NOT NULL,
  "host" VARCHAR(255) NOT NULL,
  "period_beginning" TIMESTAMP NOT NULL,
  "period_ending" TIMESTAMP NOT NULL,
  "message" VARCHAR(255) NOT NULL,
  "task_items" INTEGER,
  "errors" INTEGER,
  "deleted" INTEGER,
  PRIMARY KEY ("id")
);

CREATE TABLE "shadow_virtual_interfaces" (
  "created_at" TIMESTAMP,
  "updated_at" TIMESTAMP,
  "deleted_at" TIMESTAMP,
  "id" INTEGER NOT NULL,
  "address" VARCHAR(255),
  "network_id" INTEGER,
  "uuid" VARCHAR(36),
  "instance_uuid" VARCHAR(36),
  "deleted" INTEGER,
  PRIMARY KEY ("id")
);

CREATE TABLE "shadow_volume_id_mappings" (
  "created_at" TIMESTAMP,
  "updated_at" TIMESTAMP,
  "deleted_at" TIMESTAMP,
  "id" INTEGER NOT NULL,
  "uuid" VARCHAR(36) NOT NULL,
  "deleted" INTEGER,
  PRIMARY KEY ("id")
);

CREATE TABLE "shadow_volume_usage_cache" (
  "created_at" TIMESTAMP,
  "updated_at" TIMESTAMP,
  "deleted_at" TIMESTAMP,
  "id" INTEGER NOT NULL,
  "volume_id" VARCHAR(36) NOT NULL,
  "tot_last_refreshed" TIMESTAMP,
  "tot_reads" BIGINT,
  "tot_read_bytes" BIGINT,
  "tot_writes" BIGINT,
  "tot_write_bytes" BIGINT,
  "curr_last_refreshed" TIMESTAMP,
  "curr_reads" BIGINT,
  "curr_read_bytes" BIGINT,
  "curr_writes" BIGINT,
  "curr_write_bytes" BIGINT,
  "deleted" INTEGER,
  "instance_uuid" VARCHAR(36),
  "project_id" VARCHAR(36),
  "user_id" VARCHAR(36),
  "availability_zone" VARCHAR(255),
  PRIMARY KEY ("id")
);

CREATE TABLE "snapshot_id_mappings" (
  "created_at" TIMESTAMP,
  "updated_at" TIMESTAMP,
  "deleted_at" TIMESTAMP,
  "id" INTEGER NOT NULL,
  "uuid" VARCHAR(36) NOT NULL,
  "deleted" INTEGER,
  PRIMARY KEY ("id")
);

CREATE TABLE "snapshots" (
  "created_at" TIMESTAMP,
  "updated_at" TIMESTAMP,
  "deleted_at" TIMESTAMP,
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
  "deleted" VARCHAR(36),
  PRIMARY KEY ("id")
);

CREATE TABLE "tags" (
  "resource_id" VARCHAR(36) NOT NULL,
  "tag" VARCHAR(80) NOT NULL,
  PRIMARY KEY ("resource_id", "tag")
);

CREATE TABLE "task_log" (
  "created_at" TIMESTAMP,
  "updated_at" TIMESTAMP,
  "deleted_at" TIMESTAMP,
  "id" INTEGER NOT NULL,
  "task_name" VARCHAR(255) NOT NULL,
  "state" VARCHAR(255) NOT NULL,
  "host" VARCHAR(255) NOT NULL,
  "period_beginning" TIMESTAMP NOT NULL,
  "period_ending" TIMESTAMP NOT NULL,
  "message" VARCHAR(255) NOT NULL,
  "task_items" INTEGER,
  "errors" INTEGER,
  "deleted" INTEGER,
  PRIMARY KEY ("id")
);

CREATE TABLE "virtual_interfaces" (
  "created_at" TIMESTAMP,
  "updated_at" TIMESTAMP,
  "deleted_at" TIMESTAMP,
  "id" INTEGER NOT NULL,
  "address" VARCHAR(255),
  "network_id" INTEGER,
  "uuid" VARCHAR(36),
  "instance_uuid" VARCHAR(36),
  "deleted" INTEGER,
  PRIMARY KEY ("id")
);

CREATE TABLE "volume_id_mappings" (
  "created_at" TIMESTAMP,
  "updated_at" TIMESTAMP,
  "deleted_at" TIMESTAMP,
  "id" INTEGER NOT NULL,
  "uuid" VARCHAR(36) NOT NULL,
  "deleted" INTEGER,
  PRIMARY KEY ("id")
);

CREATE TABLE "volume_usage_cache" (
  "created_at" TIMESTAMP,
  "updated_at" TIMESTAMP,
  "deleted_at" TIMESTAMP,
  "id" INTEGER NOT NULL,
  "volume_id" VARCHAR(36) NOT NULL,
  "tot_last_refreshed" TIMESTAMP,
  "tot_reads" BIGINT,
  "tot_read_bytes" BIGINT,
  "tot_writes" BIGINT,
  "tot_write_bytes" BIGINT,
  "curr_last_refreshed" TIMESTAMP,
  "curr_reads" BIGINT,
  "curr_read_bytes" BIGINT,
  "curr_writes" BIGINT,
  "curr_write_bytes" BIGINT,
  "deleted" INTEGER,
  "instance_uuid" VARCHAR(36),
  "project_id" VARCHAR(36),
  "user_id" VARCHAR(64),
  "availability_zone" VARCHAR(255),
  PRIMARY KEY ("id")
);

ALTER TABLE "aggregate_hosts" ADD FOREIGN KEY ("aggregate_id") REFERENCES "aggregates" ("id");
ALTER TABLE "aggregate_metadata" ADD FOREIGN KEY ("aggregate_id") REFERENCES "aggregates" ("id");
-- join key (referenced column not unique): block_device_mapping(instance_uuid) -> instances(uuid)
ALTER TABLE "consoles" ADD FOREIGN KEY ("pool_id") REFERENCES "console_pools" ("id");
-- join key (referenced column not unique): consoles(instance_uuid) -> instances(uuid)
-- join key (referenced column not unique): fixed_ips(instance_uuid) -> instances(uuid)
-- join key (referenced column not unique): instance_actions(instance_uuid) -> instances(uuid)
ALTER TABLE "instance_actions_events" ADD FOREIGN KEY ("action_id") REFERENCES "instance_actions" ("id");
-- join key (referenced column not unique): instance_extra(instance_uuid) -> instances(uuid)
-- join key (referenced column not unique): instance_faults(instance_uuid) -> instances(uuid)
ALTER TABLE "instance_group_member" ADD FOREIGN KEY ("group_id") REFERENCES "instance_groups" ("id");
ALTER TABLE "instance_group_policy" ADD FOREIGN KEY ("group_id") REFERENCES "instance_groups" ("id");
-- join key (referenced column not unique): instance_info_caches(instance_uuid) -> instances(uuid)
-- join key (referenced column not unique): instance_metadata(instance_uuid) -> instances(uuid)
-- join key (referenced column not unique): instance_system_metadata(instance_uuid) -> instances(uuid)
ALTER TABLE "instance_type_extra_specs" ADD FOREIGN KEY ("instance_type_id") REFERENCES "instance_types" ("id");
ALTER TABLE "instance_type_projects" ADD FOREIGN KEY ("instance_type_id") REFERENCES "instance_types" ("id");
-- join key (referenced column not unique): migrations(instance_uuid) -> instances(uuid)
ALTER TABLE "pci_devices" ADD FOREIGN KEY ("compute_node_id") REFERENCES "compute_nodes" ("id");
ALTER TABLE "reservations" ADD FOREIGN KEY ("usage_id") REFERENCES "quota_usages" ("id");
ALTER TABLE "security_group_instance_association" ADD FOREIGN KEY ("security_group_id") REFERENCES "security_groups" ("id");
-- join key (referenced column not unique): security_group_instance_association(instance_uuid) -> instances(uuid)
ALTER TABLE "security_group_rules" ADD FOREIGN KEY ("parent_group_id") REFERENCES "security_groups" ("id");
ALTER TABLE "security_group_rules" ADD FOREIGN KEY ("group_id") REFERENCES "security_groups" ("id");
-- join key (referenced column not unique): virtual_interfaces(instance_uuid) -> instances(uuid)
