-- beaver_csail_stata_neutron: derived by build.py from peterbaile/beaver (dev_tables.json, dw_join_keys.json, dev_dw.json, dev_nw.json); see README.md

CREATE TABLE "address_scopes" (
  "id" VARCHAR(36) NOT NULL,
  "name" VARCHAR(255) NOT NULL,
  "tenant_id" VARCHAR(255),
  "shared" SMALLINT NOT NULL,
  "ip_version" INTEGER NOT NULL,
  PRIMARY KEY ("id")
);

CREATE TABLE "agents" (
  "id" VARCHAR(36) NOT NULL,
  "agent_type" VARCHAR(255) NOT NULL,
  "binary" VARCHAR(255) NOT NULL,
  "topic" VARCHAR(255) NOT NULL,
  "host" VARCHAR(255) NOT NULL,
  "admin_state_up" SMALLINT NOT NULL,
  "created_at" TIMESTAMP NOT NULL,
  "started_at" TIMESTAMP NOT NULL,
  "heartbeat_timestamp" TIMESTAMP NOT NULL,
  "description" VARCHAR(255),
  "configurations" VARCHAR(4095) NOT NULL,
  "load" INTEGER NOT NULL,
  "availability_zone" VARCHAR(255),
  "resource_versions" VARCHAR(8191),
  PRIMARY KEY ("id")
);

CREATE TABLE "alembic_version" (
  "version_num" VARCHAR(32) NOT NULL
);

CREATE TABLE "alembic_version_fwaas" (
  "version_num" VARCHAR(32) NOT NULL
);

CREATE TABLE "alembic_version_lbaas" (
  "version_num" VARCHAR(32) NOT NULL
);

CREATE TABLE "allowedaddresspairs" (
  "port_id" VARCHAR(36) NOT NULL,
  "mac_address" VARCHAR(32) NOT NULL,
  "ip_address" VARCHAR(64) NOT NULL,
  PRIMARY KEY ("port_id", "ip_address", "mac_address"),
  FOREIGN KEY ("port_id") REFERENCES "ports" ("id")
);

CREATE TABLE "arista_provisioned_nets" (
  "tenant_id" VARCHAR(255),
  "id" VARCHAR(36) NOT NULL,
  "network_id" VARCHAR(36),
  "segmentation_id" INTEGER,
  PRIMARY KEY ("id")
);

CREATE TABLE "arista_provisioned_tenants" (
  "tenant_id" VARCHAR(255),
  "id" VARCHAR(36) NOT NULL,
  PRIMARY KEY ("id")
);

CREATE TABLE "arista_provisioned_vms" (
  "tenant_id" VARCHAR(255),
  "id" VARCHAR(36) NOT NULL,
  "vm_id" VARCHAR(255),
  "host_id" VARCHAR(255),
  "port_id" VARCHAR(36),
  "network_id" VARCHAR(36),
  PRIMARY KEY ("id")
);

CREATE TABLE "auto_allocated_topologies" (
  "tenant_id" VARCHAR(255) NOT NULL,
  "network_id" VARCHAR(36) NOT NULL,
  "router_id" VARCHAR(36),
  PRIMARY KEY ("tenant_id"),
  FOREIGN KEY ("network_id") REFERENCES "networks" ("id"),
  FOREIGN KEY ("router_id") REFERENCES "routers" ("id")
);

CREATE TABLE "bgp_peers" (
  "id" VARCHAR(36) NOT NULL,
  "name" VARCHAR(255) NOT NULL,
  "auth_type" VARCHAR(16) NOT NULL,
  "password" VARCHAR(255),
  "peer_ip" VARCHAR(64) NOT NULL,
  "remote_as" INTEGER NOT NULL,
  "tenant_id" VARCHAR(255),
  PRIMARY KEY ("id")
);

CREATE TABLE "bgp_speaker_dragent_bindings" (
  "agent_id" VARCHAR(36) NOT NULL,
  "bgp_speaker_id" VARCHAR(36) NOT NULL,
  PRIMARY KEY ("agent_id"),
  FOREIGN KEY ("agent_id") REFERENCES "agents" ("id"),
  FOREIGN KEY ("bgp_speaker_id") REFERENCES "bgp_speakers" ("id")
);

CREATE TABLE "bgp_speaker_network_bindings" (
  "bgp_speaker_id" VARCHAR(36) NOT NULL,
  "network_id" VARCHAR(36) NOT NULL,
  "ip_version" INTEGER NOT NULL,
  PRIMARY KEY ("bgp_speaker_id", "network_id", "ip_version"),
  FOREIGN KEY ("bgp_speaker_id") REFERENCES "bgp_speakers" ("id"),
  FOREIGN KEY ("network_id") REFERENCES "networks" ("id")
);

CREATE TABLE "bgp_speaker_peer_bindings" (
  "bgp_speaker_id" VARCHAR(36) NOT NULL,
  "bgp_peer_id" VARCHAR(36) NOT NULL,
  PRIMARY KEY ("bgp_speaker_id", "bgp_peer_id"),
  FOREIGN KEY ("bgp_speaker_id") REFERENCES "bgp_speakers" ("id"),
  FOREIGN KEY ("bgp_peer_id") REFERENCES "bgp_peers" ("id")
);

CREATE TABLE "bgp_speakers" (
  "id" VARCHAR(36) NOT NULL,
  "name" VARCHAR(255) NOT NULL,
  "local_as" INTEGER NOT NULL,
  "ip_version" INTEGER NOT NULL,
  "tenant_id" VARCHAR(255),
  "advertise_floating_ip_host_routes" SMALLINT NOT NULL,
  "advertise_tenant_networks" SMALLINT NOT NULL,
  PRIMARY KEY ("id")
);

CREATE TABLE "brocadenetworks" (
  "id" VARCHAR(36) NOT NULL,
  "vlan" VARCHAR(10),
  PRIMARY KEY ("id")
);

CREATE TABLE "brocadeports" (
  "port_id" VARCHAR(36) NOT NULL,
  "network_id" VARCHAR(36) NOT NULL,
  "admin_state_up" SMALLINT NOT NULL,
  "physical_interface" VARCHAR(36),
  "vlan_id" VARCHAR(36),
  "tenant_id" VARCHAR(36),
  PRIMARY KEY ("port_id"),
  FOREIGN KEY ("network_id") REFERENCES "brocadenetworks" ("id")
);

CREATE TABLE "cisco_csr_identifier_map" (
  "tenant_id" VARCHAR(255),
  "ipsec_site_conn_id" VARCHAR(64) NOT NULL,
  "csr_tunnel_id" INTEGER NOT NULL,
  "csr_ike_policy_id" INTEGER NOT NULL,
  "csr_ipsec_policy_id" INTEGER NOT NULL,
  PRIMARY KEY ("ipsec_site_conn_id"),
  FOREIGN KEY ("ipsec_site_conn_id") REFERENCES "ipsec_site_connections" ("id")
);

CREATE TABLE "cisco_firewall_associations" (
  "fw_id" VARCHAR(36) NOT NULL,
  "port_id" VARCHAR(36),
  "direction" VARCHAR(16),
  "acl_id" VARCHAR(36),
  "router_id" VARCHAR(36),
  PRIMARY KEY ("fw_id"),
  FOREIGN KEY ("fw_id") REFERENCES "firewalls" ("id"),
  FOREIGN KEY ("port_id") REFERENCES "ports" ("id")
);

CREATE TABLE "cisco_hosting_devices" (
  "tenant_id" VARCHAR(255),
  "id" VARCHAR(36) NOT NULL,
  "complementary_id" VARCHAR(36),
  "device_id" VARCHAR(255),
  "admin_state_up" SMALLINT NOT NULL,
  "management_port_id" VARCHAR(36),
  "protocol_port" INTEGER,
  "cfg_agent_id" VARCHAR(36),
  "created_at" TIMESTAMP NOT NULL,
  "status" VARCHAR(16),
  PRIMARY KEY ("id"),
  FOREIGN KEY ("cfg_agent_id") REFERENCES "agents" ("id"),
  FOREIGN KEY ("management_port_id") REFERENCES "ports" ("id")
);

CREATE TABLE "cisco_ml2_apic_contracts" (
  "tenant_id" VARCHAR(255),
  "router_id" VARCHAR(64) NOT NULL,
  PRIMARY KEY ("router_id"),
  FOREIGN KEY ("router_id") REFERENCES "routers" ("id")
);

CREATE TABLE "cisco_ml2_apic_host_links" (
  "host" VARCHAR(255) NOT NULL,
  "ifname" VARCHAR(64) NOT NULL,
  "ifmac" VARCHAR(32),
  "swid" VARCHAR(32) NOT NULL,
  "module" VARCHAR(32) NOT NULL,
  "port" VARCHAR(32) NOT NULL,
  PRIMARY KEY ("ifname", "host")
);

CREATE TABLE "cisco_ml2_apic_names" (
  "neutron_id" VARCHAR(36) NOT NULL,
  "neutron_type" VARCHAR(32) NOT NULL,
  "apic_name" VARCHAR(255) NOT NULL,
  PRIMARY KEY ("neutron_type", "neutron_id")
);

CREATE TABLE "cisco_ml2_n1kv_network_bindings" (
  "network_id" VARCHAR(36) NOT NULL,
  "network_type" VARCHAR(32) NOT NULL,
  "segmentation_id" INTEGER,
  "profile_id" VARCHAR(36) NOT NULL,
  PRIMARY KEY ("network_id"),
  FOREIGN KEY ("network_id") REFERENCES "networks" ("id"),
  FOREIGN KEY ("profile_id") REFERENCES "cisco_ml2_n1kv_network_profiles" ("id")
);

CREATE TABLE "cisco_ml2_n1kv_network_profiles" (
  "id" VARCHAR(36) NOT NULL,
  "name" VARCHAR(255) NOT NULL,
  "segment_type" TEXT NOT NULL,
  "segment_range" VARCHAR(255),
  "multicast_ip_index" INTEGER,
  "multicast_ip_range" VARCHAR(255),
  "sub_type" VARCHAR(255),
  "physical_network" VARCHAR(255),
  PRIMARY KEY ("id")
);

CREATE TABLE "cisco_ml2_n1kv_policy_profiles" (
  "id" VARCHAR(36) NOT NULL,
  "name" VARCHAR(255) NOT NULL,
  "vsm_ip" VARCHAR(16) NOT NULL,
  PRIMARY KEY ("id", "vsm_ip")
);

CREATE TABLE "cisco_ml2_n1kv_port_bindings" (
  "port_id" VARCHAR(36) NOT NULL,
  "profile_id" VARCHAR(36) NOT NULL,
  PRIMARY KEY ("port_id"),
  FOREIGN KEY ("port_id") REFERENCES "ports" ("id")
);

CREATE TABLE "cisco_ml2_n1kv_profile_bindings" (
  "profile_type" TEXT,
  "tenant_id" VARCHAR(36) NOT NULL,
  "profile_id" VARCHAR(36) NOT NULL,
  PRIMARY KEY ("profile_id", "tenant_id")
);

CREATE TABLE "cisco_ml2_n1kv_vlan_allocations" (
  "physical_network" VARCHAR(64) NOT NULL,
  "vlan_id" INTEGER NOT NULL,
  "allocated" SMALLINT NOT NULL,
  "network_profile_id" VARCHAR(36) NOT NULL,
  PRIMARY KEY ("vlan_id", "physical_network"),
  FOREIGN KEY ("network_profile_id") REFERENCES "cisco_ml2_n1kv_network_profiles" ("id")
);

CREATE TABLE "cisco_ml2_n1kv_vxlan_allocations" (
  "vxlan_id" INTEGER NOT NULL,
  "allocated" SMALLINT NOT NULL,
  "network_profile_id" VARCHAR(36) NOT NULL,
  PRIMARY KEY ("vxlan_id"),
  FOREIGN KEY ("network_profile_id") REFERENCES "cisco_ml2_n1kv_network_profiles" ("id")
);

CREATE TABLE "cisco_ml2_nexus_nve" (
  "vni" INTEGER NOT NULL,
  "switch_ip" VARCHAR(255) NOT NULL,
  "device_id" VARCHAR(255) NOT NULL,
  "mcast_group" VARCHAR(255),
  PRIMARY KEY ("vni", "switch_ip", "device_id")
);

CREATE TABLE "cisco_ml2_nexusport_bindings" (
  "binding_id" INTEGER NOT NULL,
  "port_id" VARCHAR(255),
  "vlan_id" INTEGER NOT NULL,
  "switch_ip" VARCHAR(255),
  "instance_id" VARCHAR(255),
  "vni" INTEGER,
  "is_provider_vlan" SMALLINT NOT NULL,
  PRIMARY KEY ("binding_id")
);

CREATE TABLE "cisco_port_mappings" (
  "logical_resource_id" VARCHAR(36) NOT NULL,
  "logical_port_id" VARCHAR(36) NOT NULL,
  "port_type" VARCHAR(32),
  "network_type" VARCHAR(32),
  "hosting_port_id" VARCHAR(36),
  "segmentation_id" INTEGER,
  PRIMARY KEY ("logical_resource_id", "logical_port_id"),
  FOREIGN KEY ("hosting_port_id") REFERENCES "ports" ("id"),
  FOREIGN KEY ("logical_port_id") REFERENCES "ports" ("id")
);

CREATE TABLE "cisco_router_mappings" (
  "router_id" VARCHAR(36) NOT NULL,
  "auto_schedule" SMALLINT NOT NULL,
  "hosting_device_id" VARCHAR(36),
  PRIMARY KEY ("router_id"),
  FOREIGN KEY ("hosting_device_id") REFERENCES "cisco_hosting_devices" ("id"),
  FOREIGN KEY ("router_id") REFERENCES "routers" ("id")
);

CREATE TABLE "consistencyhashes" (
  "hash_id" VARCHAR(255) NOT NULL,
  "hash" VARCHAR(255) NOT NULL,
  PRIMARY KEY ("hash_id")
);

CREATE TABLE "default_security_group" (
  "tenant_id" VARCHAR(255) NOT NULL,
  "security_group_id" VARCHAR(36) NOT NULL,
  PRIMARY KEY ("tenant_id"),
  FOREIGN KEY ("security_group_id") REFERENCES "securitygroups" ("id")
);

CREATE TABLE "dnsnameservers" (
  "address" VARCHAR(128) NOT NULL,
  "subnet_id" VARCHAR(36) NOT NULL,
  "order" INTEGER NOT NULL,
  PRIMARY KEY ("subnet_id", "address"),
  FOREIGN KEY ("subnet_id") REFERENCES "subnets" ("id")
);

CREATE TABLE "dvr_host_macs" (
  "host" VARCHAR(255) NOT NULL,
  "mac_address" VARCHAR(32) NOT NULL,
  PRIMARY KEY ("host")
);

CREATE TABLE "externalnetworks" (
  "network_id" VARCHAR(36) NOT NULL,
  "is_default" SMALLINT NOT NULL,
  PRIMARY KEY ("network_id"),
  FOREIGN KEY ("network_id") REFERENCES "networks" ("id")
);

CREATE TABLE "extradhcpopts" (
  "id" VARCHAR(36) NOT NULL,
  "port_id" VARCHAR(36) NOT NULL,
  "opt_name" VARCHAR(64) NOT NULL,
  "opt_value" VARCHAR(255) NOT NULL,
  "ip_version" INTEGER NOT NULL,
  PRIMARY KEY ("id"),
  FOREIGN KEY ("port_id") REFERENCES "ports" ("id")
);

CREATE TABLE "firewall_policies" (
  "tenant_id" VARCHAR(255),
  "id" VARCHAR(36) NOT NULL,
  "name" VARCHAR(255),
  "description" VARCHAR(1024),
  "shared" SMALLINT,
  "audited" SMALLINT,
  PRIMARY KEY ("id")
);

CREATE TABLE "firewall_router_associations" (
  "fw_id" VARCHAR(36) NOT NULL,
  "router_id" VARCHAR(36) NOT NULL,
  PRIMARY KEY ("router_id", "fw_id"),
  FOREIGN KEY ("fw_id") REFERENCES "firewalls" ("id"),
  FOREIGN KEY ("router_id") REFERENCES "routers" ("id")
);

CREATE TABLE "firewall_rules" (
  "tenant_id" VARCHAR(255),
  "id" VARCHAR(36) NOT NULL,
  "name" VARCHAR(255),
  "description" VARCHAR(1024),
  "firewall_policy_id" VARCHAR(36),
  "shared" SMALLINT,
  "protocol" VARCHAR(40),
  "ip_version" INTEGER NOT NULL,
  "source_ip_address" VARCHAR(46),
  "destination_ip_address" VARCHAR(46),
  "source_port_range_min" INTEGER,
  "source_port_range_max" INTEGER,
  "destination_port_range_min" INTEGER,
  "destination_port_range_max" INTEGER,
  "action" TEXT,
  "enabled" SMALLINT,
  "position" INTEGER,
  PRIMARY KEY ("id"),
  FOREIGN KEY ("firewall_policy_id") REFERENCES "firewall_policies" ("id")
);

CREATE TABLE "firewalls" (
  "tenant_id" VARCHAR(255),
  "id" VARCHAR(36) NOT NULL,
  "name" VARCHAR(255),
  "description" VARCHAR(1024),
  "shared" SMALLINT,
  "admin_state_up" SMALLINT,
  "status" VARCHAR(16),
  "firewall_policy_id" VARCHAR(36),
  PRIMARY KEY ("id"),
  FOREIGN KEY ("firewall_policy_id") REFERENCES "firewall_policies" ("id")
);

CREATE TABLE "flavors" (
  "id" VARCHAR(36) NOT NULL,
  "name" VARCHAR(255),
  "description" VARCHAR(1024),
  "enabled" SMALLINT NOT NULL,
  "service_type" VARCHAR(36),
  PRIMARY KEY ("id")
);

CREATE TABLE "flavorserviceprofilebindings" (
  "service_profile_id" VARCHAR(36) NOT NULL,
  "flavor_id" VARCHAR(36) NOT NULL,
  PRIMARY KEY ("service_profile_id", "flavor_id"),
  FOREIGN KEY ("service_profile_id") REFERENCES "serviceprofiles" ("id"),
  FOREIGN KEY ("flavor_id") REFERENCES "flavors" ("id")
);

CREATE TABLE "floatingipdnses" (
  "floatingip_id" VARCHAR(36) NOT NULL,
  "dns_name" VARCHAR(255) NOT NULL,
  "dns_domain" VARCHAR(255) NOT NULL,
  "published_dns_name" VARCHAR(255) NOT NULL,
  "published_dns_domain" VARCHAR(255) NOT NULL,
  PRIMARY KEY ("floatingip_id"),
  FOREIGN KEY ("floatingip_id") REFERENCES "floatingips" ("id")
);

CREATE TABLE "floatingips" (
  "tenant_id" VARCHAR(255),
  "id" VARCHAR(36) NOT NULL,
  "floating_ip_address" VARCHAR(64) NOT NULL,
  "floating_network_id" VARCHAR(36) NOT NULL,
  "floating_port_id" VARCHAR(36) NOT NULL,
  "fixed_port_id" VARCHAR(36),
  "fixed_ip_address" VARCHAR(64),
  "router_id" VARCHAR(36),
  "last_known_router_id" VARCHAR(36),
  "status" VARCHAR(16),
  "standard_attr_id" BIGINT NOT NULL,
  PRIMARY KEY ("id"),
  FOREIGN KEY ("fixed_port_id") REFERENCES "ports" ("id"),
  FOREIGN KEY ("router_id") REFERENCES "routers" ("id"),
  FOREIGN KEY ("floating_port_id") REFERENCES "ports" ("id"),
  FOREIGN KEY ("standard_attr_id") REFERENCES "standardattributes" ("id")
);

CREATE TABLE "ha_router_agent_port_bindings" (
  "port_id" VARCHAR(36) NOT NULL,
  "router_id" VARCHAR(36) NOT NULL,
  "l3_agent_id" VARCHAR(36),
  "state" TEXT,
  PRIMARY KEY ("port_id"),
  FOREIGN KEY ("port_id") REFERENCES "ports" ("id"),
  FOREIGN KEY ("router_id") REFERENCES "routers" ("id"),
  FOREIGN KEY ("l3_agent_id") REFERENCES "agents" ("id")
);

CREATE TABLE "ha_router_networks" (
  "tenant_id" VARCHAR(255) NOT NULL,
  "network_id" VARCHAR(36) NOT NULL,
  PRIMARY KEY ("network_id", "tenant_id"),
  FOREIGN KEY ("network_id") REFERENCES "networks" ("id")
);

CREATE TABLE "ha_router_vrid_allocations" (
  "network_id" VARCHAR(36) NOT NULL,
  "vr_id" INTEGER NOT NULL,
  PRIMARY KEY ("vr_id", "network_id"),
  FOREIGN KEY ("network_id") REFERENCES "networks" ("id")
);

CREATE TABLE "healthmonitors" (
  "tenant_id" VARCHAR(255),
  "id" VARCHAR(36) NOT NULL,
  "type" TEXT NOT NULL,
  "delay" INTEGER NOT NULL,
  "timeout" INTEGER NOT NULL,
  "max_retries" INTEGER NOT NULL,
  "http_method" VARCHAR(16),
  "url_path" VARCHAR(255),
  "expected_codes" VARCHAR(64),
  "admin_state_up" SMALLINT NOT NULL,
  PRIMARY KEY ("id")
);

CREATE TABLE "ikepolicies" (
  "tenant_id" VARCHAR(255),
  "id" VARCHAR(36) NOT NULL,
  "name" VARCHAR(255),
  "description" VARCHAR(255),
  "auth_algorithm" TEXT NOT NULL,
  "encryption_algorithm" TEXT NOT NULL,
  "phase1_negotiation_mode" TEXT NOT NULL,
  "lifetime_units" TEXT NOT NULL,
  "lifetime_value" INTEGER NOT NULL,
  "ike_version" TEXT NOT NULL,
  "pfs" TEXT NOT NULL,
  PRIMARY KEY ("id")
);

CREATE TABLE "ipallocationpools" (
  "id" VARCHAR(36) NOT NULL,
  "subnet_id" VARCHAR(36),
  "first_ip" VARCHAR(64) NOT NULL,
  "last_ip" VARCHAR(64) NOT NULL,
  PRIMARY KEY ("id"),
  FOREIGN KEY ("subnet_id") REFERENCES "subnets" ("id")
);

CREATE TABLE "ipallocations" (
  "port_id" VARCHAR(36),
  "ip_address" VARCHAR(64) NOT NULL,
  "subnet_id" VARCHAR(36) NOT NULL,
  "network_id" VARCHAR(36) NOT NULL,
  PRIMARY KEY ("network_id", "ip_address", "subnet_id"),
  FOREIGN KEY ("port_id") REFERENCES "ports" ("id"),
  FOREIGN KEY ("subnet_id") REFERENCES "subnets" ("id"),
  FOREIGN KEY ("network_id") REFERENCES "networks" ("id")
);

CREATE TABLE "ipamallocationpools" (
  "id" VARCHAR(36) NOT NULL,
  "ipam_subnet_id" VARCHAR(36) NOT NULL,
  "first_ip" VARCHAR(64) NOT NULL,
  "last_ip" VARCHAR(64) NOT NULL,
  PRIMARY KEY ("id"),
  FOREIGN KEY ("ipam_subnet_id") REFERENCES "ipamsubnets" ("id")
);

CREATE TABLE "ipamallocations" (
  "ip_address" VARCHAR(64) NOT NULL,
  "status" VARCHAR(36),
  "ipam_subnet_id" VARCHAR(36) NOT NULL,
  PRIMARY KEY ("ipam_subnet_id", "ip_address"),
  FOREIGN KEY ("ipam_subnet_id") REFERENCES "ipamsubnets" ("id")
);

CREATE TABLE "ipamavailabilityranges" (
  "allocation_pool_id" VARCHAR(36) NOT NULL,
  "first_ip" VARCHAR(64) NOT NULL,
  "last_ip" VARCHAR(64) NOT NULL,
  PRIMARY KEY ("first_ip", "last_ip", "allocation_pool_id"),
  FOREIGN KEY ("allocation_pool_id") REFERENCES "ipamallocationpools" ("id")
);

CREATE TABLE "ipamsubnets" (
  "id" VARCHAR(36) NOT NULL,
  "neutron_subnet_id" VARCHAR(36),
  PRIMARY KEY ("id")
);

CREATE TABLE "ipavailabilityranges" (
  "allocation_pool_id" VARCHAR(36) NOT NULL,
  "first_ip" VARCHAR(64) NOT NULL,
  "last_ip" VARCHAR(64) NOT NULL,
  PRIMARY KEY ("first_ip", "last_ip", "allocation_pool_id"),
  FOREIGN KEY ("allocation_pool_id") REFERENCES "ipallocationpools" ("id")
);

CREATE TABLE "ipsec_site_connections" (
  "tenant_id" VARCHAR(255),
  "id" VARCHAR(36) NOT NULL,
  "name" VARCHAR(255),
  "description" VARCHAR(255),
  "peer_address" VARCHAR(255) NOT NULL,
  "peer_id" VARCHAR(255) NOT NULL,
  "route_mode" VARCHAR(8) NOT NULL,
  "mtu" INTEGER NOT NULL,
  "initiator" TEXT NOT NULL,
  "auth_mode" VARCHAR(16) NOT NULL,
  "psk" VARCHAR(255) NOT NULL,
  "dpd_action" TEXT NOT NULL,
  "dpd_interval" INTEGER NOT NULL,
  "dpd_timeout" INTEGER NOT NULL,
  "status" VARCHAR(16) NOT NULL,
  "admin_state_up" SMALLINT NOT NULL,
  "vpnservice_id" VARCHAR(36) NOT NULL,
  "ipsecpolicy_id" VARCHAR(36) NOT NULL,
  "ikepolicy_id" VARCHAR(36) NOT NULL,
  PRIMARY KEY ("id"),
  FOREIGN KEY ("vpnservice_id") REFERENCES "vpnservices" ("id"),
  FOREIGN KEY ("ipsecpolicy_id") REFERENCES "ipsecpolicies" ("id"),
  FOREIGN KEY ("ikepolicy_id") REFERENCES "ikepolicies" ("id")
);

CREATE TABLE "ipsecpeercidrs" (
  "cidr" VARCHAR(32) NOT NULL,
  "ipsec_site_connection_id" VARCHAR(36) NOT NULL,
  PRIMARY KEY ("cidr", "ipsec_site_connection_id"),
  FOREIGN KEY ("ipsec_site_connection_id") REFERENCES "ipsec_site_connections" ("id")
);

CREATE TABLE "ipsecpolicies" (
  "tenant_id" VARCHAR(255),
  "id" VARCHAR(36) NOT NULL,
  "name" VARCHAR(255),
  "description" VARCHAR(255),
  "transform_protocol" TEXT NOT NULL,
  "auth_algorithm" TEXT NOT NULL,
  "encryption_algorithm" TEXT NOT NULL,
  "encapsulation_mode" TEXT NOT NULL,
  "lifetime_units" TEXT NOT NULL,
  "lifetime_value" INTEGER NOT NULL,
  "pfs" TEXT NOT NULL,
  PRIMARY KEY ("id")
);

CREATE TABLE "lbaas_healthmonitors" (
  "tenant_id" VARCHAR(255),
  "id" VARCHAR(36) NOT NULL,
  "type" TEXT NOT NULL,
  "delay" INTEGER NOT NULL,
  "timeout" INTEGER NOT NULL,
  "max_retries" INTEGER NOT NULL,
  "http_method" VARCHAR(16),
  "url_path" VARCHAR(255),
  "expected_codes" VARCHAR(64),
  "admin_state_up" SMALLINT NOT NULL,
  "provisioning_status" VARCHAR(16) NOT NULL,
  "name" VARCHAR(255),
  PRIMARY KEY ("id")
);

CREATE TABLE "lbaas_l7policies" (
  "tenant_id" VARCHAR(255),
  "id" VARCHAR(36) NOT NULL,
  "name" VARCHAR(255),
  "description" VARCHAR(255),
  "listener_id" VARCHAR(36) NOT NULL,
  "action" TEXT NOT NULL,
  "redirect_pool_id" VARCHAR(36),
  "redirect_url" VARCHAR(255),
  "position" INTEGER NOT NULL,
  "provisioning_status" VARCHAR(16) NOT NULL,
  "admin_state_up" SMALLINT NOT NULL,
  PRIMARY KEY ("id"),
  FOREIGN KEY ("listener_id") REFERENCES "lbaas_listeners" ("id"),
  FOREIGN KEY ("redirect_pool_id") REFERENCES "lbaas_pools" ("id")
);

CREATE TABLE "lbaas_l7rules" (
  "tenant_id" VARCHAR(255),
  "id" VARCHAR(36) NOT NULL,
  "l7policy_id" VARCHAR(36) NOT NULL,
  "type" TEXT NOT NULL,
  "compare_type" TEXT NOT NULL,
  "invert" SMALLINT NOT NULL,
  "key" VARCHAR(255),
  "value" VARCHAR(255) NOT NULL,
  "provisioning_status" VARCHAR(16) NOT NULL,
  "admin_state_up" SMALLINT NOT NULL,
  PRIMARY KEY ("id"),
  FOREIGN KEY ("l7policy_id") REFERENCES "lbaas_l7policies" ("id")
);

CREATE TABLE "lbaas_listeners" (
  "tenant_id" VARCHAR(255),
  "id" VARCHAR(36) NOT NULL,
  "name" VARCHAR(255),
  "description" VARCHAR(255),
  "protocol" TEXT NOT NULL,
  "protocol_port" INTEGER NOT NULL,
  "connection_limit" INTEGER,
  "loadbalancer_id" VARCHAR(36),
  "default_pool_id" VARCHAR(36),
  "admin_state_up" SMALLINT NOT NULL,
  "provisioning_status" VARCHAR(16) NOT NULL,
  "operating_status" VARCHAR(16) NOT NULL,
  "default_tls_container_id" VARCHAR(128),
  PRIMARY KEY ("id"),
  FOREIGN KEY ("loadbalancer_id") REFERENCES "lbaas_loadbalancers" ("id"),
  FOREIGN KEY ("default_pool_id") REFERENCES "lbaas_pools" ("id")
);

CREATE TABLE "lbaas_loadbalancer_statistics" (
  "loadbalancer_id" VARCHAR(36) NOT NULL,
  "bytes_in" BIGINT NOT NULL,
  "bytes_out" BIGINT NOT NULL,
  "active_connections" BIGINT NOT NULL,
  "total_connections" BIGINT NOT NULL,
  PRIMARY KEY ("loadbalancer_id"),
  FOREIGN KEY ("loadbalancer_id") REFERENCES "lbaas_loadbalancers" ("id")
);

CREATE TABLE "lbaas_loadbalanceragentbindings" (
  "loadbalancer_id" VARCHAR(36) NOT NULL,
  "agent_id" VARCHAR(36) NOT NULL,
  PRIMARY KEY ("loadbalancer_id"),
  FOREIGN KEY ("loadbalancer_id") REFERENCES "lbaas_loadbalancers" ("id"),
  FOREIGN KEY ("agent_id") REFERENCES "agents" ("id")
);

CREATE TABLE "lbaas_loadbalancers" (
  "tenant_id" VARCHAR(255),
  "id" VARCHAR(36) NOT NULL,
  "name" VARCHAR(255),
  "description" VARCHAR(255),
  "vip_port_id" VARCHAR(36),
  "vip_subnet_id" VARCHAR(36) NOT NULL,
  "vip_address" VARCHAR(36),
  "admin_state_up" SMALLINT NOT NULL,
  "provisioning_status" VARCHAR(16) NOT NULL,
  "operating_status" VARCHAR(16) NOT NULL,
  "flavor_id" VARCHAR(36),
  PRIMARY KEY ("id"),
  FOREIGN KEY ("flavor_id") REFERENCES "flavors" ("id"),
  FOREIGN KEY ("vip_port_id") REFERENCES "ports" ("id")
);

CREATE TABLE "lbaas_members" (
  "tenant_id" VARCHAR(255),
  "id" VARCHAR(36) NOT NULL,
  "pool_id" VARCHAR(36) NOT NULL,
  "subnet_id" VARCHAR(36),
  "address" VARCHAR(64) NOT NULL,
  "protocol_port" INTEGER NOT NULL,
  "weight" INTEGER,
  "admin_state_up" SMALLINT NOT NULL,
  "provisioning_status" VARCHAR(16) NOT NULL,
  "operating_status" VARCHAR(16) NOT NULL,
  "name" VARCHAR(255),
  PRIMARY KEY ("id"),
  FOREIGN KEY ("pool_id") REFERENCES "lbaas_pools" ("id")
);

CREATE TABLE "lbaas_pools" (
  "tenant_id" VARCHAR(255),
  "id" VARCHAR(36) NOT NULL,
  "name" VARCHAR(255),
  "description" VARCHAR(255),
  "protocol" TEXT NOT NULL,
  "lb_algorithm" TEXT NOT NULL,
  "healthmonitor_id" VARCHAR(36),
  "admin_state_up" SMALLINT NOT NULL,
  "provisioning_status" VARCHAR(16) NOT NULL,
  "operating_status" VARCHAR(16) NOT NULL,
  "loadbalancer_id" VARCHAR(36),
  PRIMARY KEY ("id"),
  FOREIGN KEY ("healthmonitor_id") REFERENCES "lbaas_healthmonitors" ("id"),
  FOREIGN KEY ("loadbalancer_id") REFERENCES "lbaas_loadbalancers" ("id")
);

CREATE TABLE "lbaas_sessionpersistences" (
  "pool_id" VARCHAR(36) NOT NULL,
  "type" TEXT NOT NULL,
  "cookie_name" VARCHAR(1024),
  PRIMARY KEY ("pool_id"),
  FOREIGN KEY ("pool_id") REFERENCES "lbaas_pools" ("id")
);

CREATE TABLE "lbaas_sni" (
  "listener_id" VARCHAR(36) NOT NULL,
  "tls_container_id" VARCHAR(128) NOT NULL,
  "position" INTEGER,
  PRIMARY KEY ("listener_id", "tls_container_id"),
  FOREIGN KEY ("listener_id") REFERENCES "lbaas_listeners" ("id")
);

CREATE TABLE "lsn" (
  "lsn_id" VARCHAR(36) NOT NULL,
  "net_id" VARCHAR(36) NOT NULL,
  PRIMARY KEY ("lsn_id")
);

CREATE TABLE "lsn_port" (
  "lsn_port_id" VARCHAR(36) NOT NULL,
  "lsn_id" VARCHAR(36) NOT NULL,
  "sub_id" VARCHAR(36) NOT NULL,
  "mac_addr" VARCHAR(32) NOT NULL,
  PRIMARY KEY ("lsn_port_id"),
  FOREIGN KEY ("lsn_id") REFERENCES "lsn" ("lsn_id")
);

CREATE TABLE "maclearningstates" (
  "port_id" VARCHAR(36) NOT NULL,
  "mac_learning_enabled" SMALLINT NOT NULL,
  PRIMARY KEY ("port_id"),
  FOREIGN KEY ("port_id") REFERENCES "ports" ("id")
);

CREATE TABLE "members" (
  "tenant_id" VARCHAR(255),
  "id" VARCHAR(36) NOT NULL,
  "pool_id" VARCHAR(36) NOT NULL,
  "address" VARCHAR(64) NOT NULL,
  "protocol_port" INTEGER NOT NULL,
  "weight" INTEGER NOT NULL,
  "status" VARCHAR(16) NOT NULL,
  "status_description" VARCHAR(255),
  "admin_state_up" SMALLINT NOT NULL,
  PRIMARY KEY ("id"),
  FOREIGN KEY ("pool_id") REFERENCES "pools" ("id")
);

CREATE TABLE "meteringlabelrules" (
  "id" VARCHAR(36) NOT NULL,
  "direction" TEXT,
  "remote_ip_prefix" VARCHAR(64),
  "metering_label_id" VARCHAR(36) NOT NULL,
  "excluded" SMALLINT,
  PRIMARY KEY ("id"),
  FOREIGN KEY ("metering_label_id") REFERENCES "meteringlabels" ("id")
);

CREATE TABLE "meteringlabels" (
  "tenant_id" VARCHAR(255),
  "id" VARCHAR(36) NOT NULL,
  "name" VARCHAR(255),
  "description" VARCHAR(1024),
  "shared" SMALLINT,
  PRIMARY KEY ("id")
);

CREATE TABLE "ml2_brocadenetworks" (
  "tenant_id" VARCHAR(255),
  "id" VARCHAR(36) NOT NULL,
  "vlan" VARCHAR(10),
  "segment_id" VARCHAR(36),
  "network_type" VARCHAR(10),
  PRIMARY KEY ("id")
);

CREATE TABLE "ml2_brocadeports" (
  "tenant_id" VARCHAR(255),
  "id" VARCHAR(36) NOT NULL,
  "network_id" VARCHAR(36) NOT NULL,
  "admin_state_up" SMALLINT NOT NULL,
  "physical_interface" VARCHAR(36),
  "vlan_id" VARCHAR(36),
  PRIMARY KEY ("id"),
  FOREIGN KEY ("network_id") REFERENCES "ml2_brocadenetworks" ("id")
);

CREATE TABLE "ml2_dvr_port_bindings" (
  "port_id" VARCHAR(36) NOT NULL,
  "host" VARCHAR(255) NOT NULL,
  "router_id" VARCHAR(36),
  "vif_type" VARCHAR(64) NOT NULL,
  "vif_details" VARCHAR(4095) NOT NULL,
  "vnic_type" VARCHAR(64) NOT NULL,
  "profile" VARCHAR(4095) NOT NULL,
  "status" VARCHAR(16) NOT NULL,
  PRIMARY KEY ("port_id", "host"),
  FOREIGN KEY ("port_id") REFERENCES "ports" ("id")
);

CREATE TABLE "ml2_flat_allocations" (
  "physical_network" VARCHAR(64) NOT NULL,
  PRIMARY KEY ("physical_network")
);

CREATE TABLE "ml2_geneve_allocations" (
  "geneve_vni" INTEGER NOT NULL,
  "allocated" SMALLINT NOT NULL,
  PRIMARY KEY ("geneve_vni")
);

CREATE TABLE "ml2_geneve_endpoints" (
  "ip_address" VARCHAR(64) NOT NULL,
  "host" VARCHAR(255),
  PRIMARY KEY ("ip_address")
);

CREATE TABLE "ml2_gre_allocations" (
  "gre_id" INTEGER NOT NULL,
  "allocated" SMALLINT NOT NULL,
  PRIMARY KEY ("gre_id")
);

CREATE TABLE "ml2_gre_endpoints" (
  "ip_address" VARCHAR(64) NOT NULL,
  "host" VARCHAR(255),
  PRIMARY KEY ("ip_address")
);

CREATE TABLE "ml2_network_segments" (
  "id" VARCHAR(36) NOT NULL,
  "network_id" VARCHAR(36) NOT NULL,
  "network_type" VARCHAR(32) NOT NULL,
  "physical_network" VARCHAR(64),
  "segmentation_id" INTEGER,
  "is_dynamic" SMALLINT NOT NULL,
  "segment_index" INTEGER NOT NULL,
  PRIMARY KEY ("id"),
  FOREIGN KEY ("network_id") REFERENCES "networks" ("id")
);

CREATE TABLE "ml2_nexus_vxlan_allocations" (
  "vxlan_vni" INTEGER NOT NULL,
  "allocated" SMALLINT NOT NULL,
  PRIMARY KEY ("vxlan_vni")
);

CREATE TABLE "ml2_nexus_vxlan_mcast_groups" (
  "id" VARCHAR(36) NOT NULL,
  "mcast_group" VARCHAR(64) NOT NULL,
  "associated_vni" INTEGER NOT NULL,
  PRIMARY KEY ("id"),
  FOREIGN KEY ("associated_vni") REFERENCES "ml2_nexus_vxlan_allocations" ("vxlan_vni")
);

CREATE TABLE "ml2_port_binding_levels" (
  "port_id" VARCHAR(36) NOT NULL,
  "host" VARCHAR(255) NOT NULL,
  "level" INTEGER NOT NULL,
  "driver" VARCHAR(64),
  "segment_id" VARCHAR(36),
  PRIMARY KEY ("port_id", "level", "host"),
  FOREIGN KEY ("port_id") REFERENCES "ports" ("id"),
  FOREIGN KEY ("segment_id") REFERENCES "ml2_network_segments" ("id")
);

CREATE TABLE "ml2_port_bindings" (
  "port_id" VARCHAR(36) NOT NULL,
  "host" VARCHAR(255) NOT NULL,
  "vif_type" VARCHAR(64) NOT NULL,
  "vnic_type" VARCHAR(64) NOT NULL,
  "vif_details" VARCHAR(4095) NOT NULL,
  "profile" VARCHAR(4095) NOT NULL,
  PRIMARY KEY ("port_id"),
  FOREIGN KEY ("port_id") REFERENCES "ports" ("id")
);

CREATE TABLE "ml2_ucsm_port_profiles" (
  "vlan_id" INTEGER NOT NULL,
  "profile_id" VARCHAR(64) NOT NULL,
  "created_on_ucs" SMALLINT NOT NULL,
  PRIMARY KEY ("vlan_id")
);

CREATE TABLE "ml2_vlan_allocations" (
  "physical_network" VARCHAR(64) NOT NULL,
  "vlan_id" INTEGER NOT NULL,
  "allocated" SMALLINT NOT NULL,
  PRIMARY KEY ("vlan_id", "physical_network")
);

CREATE TABLE "ml2_vxlan_allocations" (
  "vxlan_vni" INTEGER NOT NULL,
  "allocated" SMALLINT NOT NULL,
  PRIMARY KEY ("vxlan_vni")
);

CREATE TABLE "ml2_vxlan_endpoints" (
  "ip_address" VARCHAR(64) NOT NULL,
  "udp_port" INTEGER NOT NULL,
  "host" VARCHAR(255),
  PRIMARY KEY ("ip_address")
);

CREATE TABLE "multi_provider_networks" (
  "network_id" VARCHAR(36) NOT NULL,
  PRIMARY KEY ("network_id"),
  FOREIGN KEY ("network_id") REFERENCES "networks" ("id")
);

CREATE TABLE "networkconnections" (
  "tenant_id" VARCHAR(255),
  "network_gateway_id" VARCHAR(36),
  "network_id" VARCHAR(36),
  "segmentation_type" TEXT,
  "segmentation_id" INTEGER,
  "port_id" VARCHAR(36) NOT NULL,
  PRIMARY KEY ("port_id"),
  FOREIGN KEY ("network_gateway_id") REFERENCES "networkgateways" ("id"),
  FOREIGN KEY ("network_id") REFERENCES "networks" ("id"),
  FOREIGN KEY ("port_id") REFERENCES "ports" ("id")
);

CREATE TABLE "networkdhcpagentbindings" (
  "network_id" VARCHAR(36) NOT NULL,
  "dhcp_agent_id" VARCHAR(36) NOT NULL,
  PRIMARY KEY ("network_id", "dhcp_agent_id"),
  FOREIGN KEY ("network_id") REFERENCES "networks" ("id"),
  FOREIGN KEY ("dhcp_agent_id") REFERENCES "agents" ("id")
);

CREATE TABLE "networkdnsdomains" (
  "network_id" VARCHAR(36) NOT NULL,
  "dns_domain" VARCHAR(255) NOT NULL,
  PRIMARY KEY ("network_id"),
  FOREIGN KEY ("network_id") REFERENCES "networks" ("id")
);

CREATE TABLE "networkgatewaydevicereferences" (
  "id" VARCHAR(36) NOT NULL,
  "network_gateway_id" VARCHAR(36) NOT NULL,
  "interface_name" VARCHAR(64) NOT NULL,
  PRIMARY KEY ("id", "network_gateway_id", "interface_name"),
  FOREIGN KEY ("network_gateway_id") REFERENCES "networkgateways" ("id")
);

CREATE TABLE "networkgatewaydevices" (
  "tenant_id" VARCHAR(255),
  "id" VARCHAR(36) NOT NULL,
  "nsx_id" VARCHAR(36),
  "name" VARCHAR(255),
  "connector_type" VARCHAR(10),
  "connector_ip" VARCHAR(64),
  "status" VARCHAR(16),
  PRIMARY KEY ("id")
);

CREATE TABLE "networkgateways" (
  "id" VARCHAR(36) NOT NULL,
  "name" VARCHAR(255),
  "tenant_id" VARCHAR(36),
  "default" SMALLINT,
  PRIMARY KEY ("id")
);

CREATE TABLE "networkqueuemappings" (
  "network_id" VARCHAR(36) NOT NULL,
  "queue_id" VARCHAR(36),
  PRIMARY KEY ("network_id"),
  FOREIGN KEY ("network_id") REFERENCES "networks" ("id"),
  FOREIGN KEY ("queue_id") REFERENCES "qosqueues" ("id")
);

CREATE TABLE "networkrbacs" (
  "id" VARCHAR(36) NOT NULL,
  "object_id" VARCHAR(36) NOT NULL,
  "tenant_id" VARCHAR(255),
  "target_tenant" VARCHAR(255) NOT NULL,
  "action" VARCHAR(255) NOT NULL,
  PRIMARY KEY ("id"),
  FOREIGN KEY ("object_id") REFERENCES "networks" ("id")
);

CREATE TABLE "networks" (
  "tenant_id" VARCHAR(255),
  "id" VARCHAR(36) NOT NULL,
  "name" VARCHAR(255),
  "status" VARCHAR(16),
  "admin_state_up" SMALLINT,
  "mtu" INTEGER,
  "vlan_transparent" SMALLINT,
  "standard_attr_id" BIGINT NOT NULL,
  "availability_zone_hints" VARCHAR(255),
  PRIMARY KEY ("id"),
  FOREIGN KEY ("standard_attr_id") REFERENCES "standardattributes" ("id")
);

CREATE TABLE "networksecuritybindings" (
  "network_id" VARCHAR(36) NOT NULL,
  "port_security_enabled" SMALLINT NOT NULL,
  PRIMARY KEY ("network_id"),
  FOREIGN KEY ("network_id") REFERENCES "networks" ("id")
);

CREATE TABLE "neutron_nsx_network_mappings" (
  "neutron_id" VARCHAR(36) NOT NULL,
  "nsx_id" VARCHAR(36) NOT NULL,
  PRIMARY KEY ("nsx_id", "neutron_id"),
  FOREIGN KEY ("neutron_id") REFERENCES "networks" ("id")
);

CREATE TABLE "neutron_nsx_port_mappings" (
  "neutron_id" VARCHAR(36) NOT NULL,
  "nsx_switch_id" VARCHAR(36),
  "nsx_port_id" VARCHAR(36) NOT NULL,
  PRIMARY KEY ("neutron_id"),
  FOREIGN KEY ("neutron_id") REFERENCES "ports" ("id")
);

CREATE TABLE "neutron_nsx_router_mappings" (
  "neutron_id" VARCHAR(36) NOT NULL,
  "nsx_id" VARCHAR(36),
  PRIMARY KEY ("neutron_id"),
  FOREIGN KEY ("neutron_id") REFERENCES "routers" ("id")
);

CREATE TABLE "neutron_nsx_security_group_mappings" (
  "neutron_id" VARCHAR(36) NOT NULL,
  "nsx_id" VARCHAR(36) NOT NULL,
  PRIMARY KEY ("nsx_id", "neutron_id"),
  FOREIGN KEY ("neutron_id") REFERENCES "securitygroups" ("id")
);

CREATE TABLE "nexthops" (
  "rule_id" INTEGER NOT NULL,
  "nexthop" VARCHAR(64) NOT NULL,
  PRIMARY KEY ("rule_id", "nexthop"),
  FOREIGN KEY ("rule_id") REFERENCES "routerrules" ("id")
);

CREATE TABLE "nsxv_edge_dhcp_static_bindings" (
  "edge_id" VARCHAR(36) NOT NULL,
  "mac_address" VARCHAR(32) NOT NULL,
  "binding_id" VARCHAR(36) NOT NULL,
  PRIMARY KEY ("edge_id", "mac_address")
);

CREATE TABLE "nsxv_edge_monitor_mappings" (
  "monitor_id" VARCHAR(36) NOT NULL,
  "edge_id" VARCHAR(36) NOT NULL,
  "edge_monitor_id" VARCHAR(36) NOT NULL,
  PRIMARY KEY ("monitor_id"),
  FOREIGN KEY ("monitor_id") REFERENCES "healthmonitors" ("id")
);

CREATE TABLE "nsxv_edge_pool_mappings" (
  "pool_id" VARCHAR(36) NOT NULL,
  "edge_id" VARCHAR(36) NOT NULL,
  "edge_pool_id" VARCHAR(36) NOT NULL,
  PRIMARY KEY ("pool_id"),
  FOREIGN KEY ("pool_id") REFERENCES "pools" ("id")
);

CREATE TABLE "nsxv_edge_vip_mappings" (
  "pool_id" VARCHAR(36) NOT NULL,
  "edge_id" VARCHAR(36) NOT NULL,
  "edge_app_profile_id" VARCHAR(36) NOT NULL,
  "edge_vse_id" VARCHAR(36) NOT NULL,
  "edge_fw_rule_id" VARCHAR(36) NOT NULL,
  PRIMARY KEY ("pool_id"),
  FOREIGN KEY ("pool_id") REFERENCES "pools" ("id")
);

CREATE TABLE "nsxv_edge_vnic_bindings" (
  "edge_id" VARCHAR(36) NOT NULL,
  "vnic_index" INTEGER NOT NULL,
  "tunnel_index" INTEGER NOT NULL,
  "network_id" VARCHAR(36),
  PRIMARY KEY ("edge_id", "tunnel_index", "vnic_index")
);

CREATE TABLE "nsxv_firewall_rule_bindings" (
  "rule_id" VARCHAR(36) NOT NULL,
  "edge_id" VARCHAR(36) NOT NULL,
  "rule_vse_id" VARCHAR(36),
  PRIMARY KEY ("edge_id", "rule_id")
);

CREATE TABLE "nsxv_internal_edges" (
  "ext_ip_address" VARCHAR(64) NOT NULL,
  "router_id" VARCHAR(36),
  "purpose" TEXT,
  PRIMARY KEY ("ext_ip_address")
);

CREATE TABLE "nsxv_internal_networks" (
  "network_purpose" TEXT NOT NULL,
  "network_id" VARCHAR(36),
  PRIMARY KEY ("network_purpose"),
  FOREIGN KEY ("network_id") REFERENCES "networks" ("id")
);

CREATE TABLE "nsxv_port_index_mappings" (
  "port_id" VARCHAR(36) NOT NULL,
  "device_id" VARCHAR(255) NOT NULL,
  "index" INTEGER NOT NULL,
  PRIMARY KEY ("port_id"),
  FOREIGN KEY ("port_id") REFERENCES "ports" ("id")
);

CREATE TABLE "nsxv_port_vnic_mappings" (
  "neutron_id" VARCHAR(36) NOT NULL,
  "nsx_id" VARCHAR(42) NOT NULL,
  PRIMARY KEY ("nsx_id", "neutron_id"),
  FOREIGN KEY ("neutron_id") REFERENCES "ports" ("id")
);

CREATE TABLE "nsxv_router_bindings" (
  "status" VARCHAR(16) NOT NULL,
  "status_description" VARCHAR(255),
  "router_id" VARCHAR(36) NOT NULL,
  "edge_id" VARCHAR(36),
  "lswitch_id" VARCHAR(36),
  "appliance_size" TEXT,
  "edge_type" TEXT,
  PRIMARY KEY ("router_id")
);

CREATE TABLE "nsxv_router_ext_attributes" (
  "router_id" VARCHAR(36) NOT NULL,
  "distributed" SMALLINT NOT NULL,
  "router_type" TEXT NOT NULL,
  "service_router" SMALLINT NOT NULL,
  PRIMARY KEY ("router_id"),
  FOREIGN KEY ("router_id") REFERENCES "routers" ("id")
);

CREATE TABLE "nsxv_rule_mappings" (
  "neutron_id" VARCHAR(36) NOT NULL,
  "nsx_rule_id" VARCHAR(36) NOT NULL,
  PRIMARY KEY ("neutron_id", "nsx_rule_id"),
  FOREIGN KEY ("neutron_id") REFERENCES "securitygrouprules" ("id")
);

CREATE TABLE "nsxv_security_group_section_mappings" (
  "neutron_id" VARCHAR(36) NOT NULL,
  "ip_section_id" VARCHAR(100),
  PRIMARY KEY ("neutron_id"),
  FOREIGN KEY ("neutron_id") REFERENCES "securitygroups" ("id")
);

CREATE TABLE "nsxv_spoofguard_policy_network_mappings" (
  "network_id" VARCHAR(36) NOT NULL,
  "policy_id" VARCHAR(36) NOT NULL,
  PRIMARY KEY ("network_id"),
  FOREIGN KEY ("network_id") REFERENCES "networks" ("id")
);

CREATE TABLE "nsxv_tz_network_bindings" (
  "network_id" VARCHAR(36) NOT NULL,
  "binding_type" TEXT NOT NULL,
  "phy_uuid" VARCHAR(36) NOT NULL,
  "vlan_id" INTEGER NOT NULL,
  PRIMARY KEY ("phy_uuid", "vlan_id", "network_id", "binding_type"),
  FOREIGN KEY ("network_id") REFERENCES "networks" ("id")
);

CREATE TABLE "nsxv_vdr_dhcp_bindings" (
  "vdr_router_id" VARCHAR(36) NOT NULL,
  "dhcp_router_id" VARCHAR(36) NOT NULL,
  "dhcp_edge_id" VARCHAR(36) NOT NULL,
  PRIMARY KEY ("vdr_router_id")
);

CREATE TABLE "nuage_net_partition_router_mapping" (
  "net_partition_id" VARCHAR(36) NOT NULL,
  "router_id" VARCHAR(36) NOT NULL,
  "nuage_router_id" VARCHAR(36),
  "nuage_rtr_rd" VARCHAR(36),
  "nuage_rtr_rt" VARCHAR(36),
  PRIMARY KEY ("net_partition_id", "router_id"),
  FOREIGN KEY ("net_partition_id") REFERENCES "nuage_net_partitions" ("id"),
  FOREIGN KEY ("router_id") REFERENCES "routers" ("id")
);

CREATE TABLE "nuage_net_partitions" (
  "id" VARCHAR(36) NOT NULL,
  "name" VARCHAR(64),
  "l3dom_tmplt_id" VARCHAR(36),
  "l2dom_tmplt_id" VARCHAR(36),
  "isolated_zone" VARCHAR(64),
  "shared_zone" VARCHAR(64),
  PRIMARY KEY ("id")
);

CREATE TABLE "nuage_provider_net_bindings" (
  "network_id" VARCHAR(36) NOT NULL,
  "network_type" VARCHAR(32) NOT NULL,
  "physical_network" VARCHAR(64) NOT NULL,
  "vlan_id" INTEGER NOT NULL,
  PRIMARY KEY ("network_id"),
  FOREIGN KEY ("network_id") REFERENCES "networks" ("id")
);

CREATE TABLE "nuage_subnet_l2dom_mapping" (
  "subnet_id" VARCHAR(36) NOT NULL,
  "net_partition_id" VARCHAR(36),
  "nuage_subnet_id" VARCHAR(36),
  "nuage_l2dom_tmplt_id" VARCHAR(36),
  "nuage_user_id" VARCHAR(36),
  "nuage_group_id" VARCHAR(36),
  "nuage_managed_subnet" SMALLINT,
  PRIMARY KEY ("subnet_id"),
  FOREIGN KEY ("subnet_id") REFERENCES "subnets" ("id"),
  FOREIGN KEY ("net_partition_id") REFERENCES "nuage_net_partitions" ("id")
);

CREATE TABLE "poolloadbalanceragentbindings" (
  "pool_id" VARCHAR(36) NOT NULL,
  "agent_id" VARCHAR(36) NOT NULL,
  PRIMARY KEY ("pool_id"),
  FOREIGN KEY ("pool_id") REFERENCES "pools" ("id"),
  FOREIGN KEY ("agent_id") REFERENCES "agents" ("id")
);

CREATE TABLE "poolmonitorassociations" (
  "pool_id" VARCHAR(36) NOT NULL,
  "monitor_id" VARCHAR(36) NOT NULL,
  "status" VARCHAR(16) NOT NULL,
  "status_description" VARCHAR(255),
  PRIMARY KEY ("pool_id", "monitor_id"),
  FOREIGN KEY ("pool_id") REFERENCES "pools" ("id"),
  FOREIGN KEY ("monitor_id") REFERENCES "healthmonitors" ("id")
);

CREATE TABLE "pools" (
  "tenant_id" VARCHAR(255),
  "id" VARCHAR(36) NOT NULL,
  "vip_id" VARCHAR(36),
  "name" VARCHAR(255),
  "description" VARCHAR(255),
  "subnet_id" VARCHAR(36) NOT NULL,
  "protocol" TEXT NOT NULL,
  "lb_method" TEXT NOT NULL,
  "status" VARCHAR(16) NOT NULL,
  "status_description" VARCHAR(255),
  "admin_state_up" SMALLINT NOT NULL,
  PRIMARY KEY ("id"),
  FOREIGN KEY ("vip_id") REFERENCES "vips" ("id")
);

CREATE TABLE "poolstatisticss" (
  "pool_id" VARCHAR(36) NOT NULL,
  "bytes_in" BIGINT NOT NULL,
  "bytes_out" BIGINT NOT NULL,
  "active_connections" BIGINT NOT NULL,
  "total_connections" BIGINT NOT NULL,
  PRIMARY KEY ("pool_id"),
  FOREIGN KEY ("pool_id") REFERENCES "pools" ("id")
);

CREATE TABLE "portbindingports" (
  "port_id" VARCHAR(36) NOT NULL,
  "host" VARCHAR(255) NOT NULL,
  PRIMARY KEY ("port_id"),
  FOREIGN KEY ("port_id") REFERENCES "ports" ("id")
);

CREATE TABLE "portdnses" (
  "port_id" VARCHAR(36) NOT NULL,
  "current_dns_name" VARCHAR(255) NOT NULL,
  "current_dns_domain" VARCHAR(255) NOT NULL,
  "previous_dns_name" VARCHAR(255) NOT NULL,
  "previous_dns_domain" VARCHAR(255) NOT NULL,
  PRIMARY KEY ("port_id"),
  FOREIGN KEY ("port_id") REFERENCES "ports" ("id")
);

CREATE TABLE "portqueuemappings" (
  "port_id" VARCHAR(36) NOT NULL,
  "queue_id" VARCHAR(36) NOT NULL,
  PRIMARY KEY ("port_id", "queue_id"),
  FOREIGN KEY ("port_id") REFERENCES "ports" ("id"),
  FOREIGN KEY ("queue_id") REFERENCES "qosqueues" ("id")
);

CREATE TABLE "ports" (
  "tenant_id" VARCHAR(255),
  "id" VARCHAR(36) NOT NULL,
  "name" VARCHAR(255),
  "network_id" VARCHAR(36) NOT NULL,
  "mac_address" VARCHAR(32) NOT NULL,
  "admin_state_up" SMALLINT NOT NULL,
  "status" VARCHAR(16) NOT NULL,
  "device_id" VARCHAR(255) NOT NULL,
  "device_owner" VARCHAR(255) NOT NULL,
  "dns_name" VARCHAR(255),
  "standard_attr_id" BIGINT NOT NULL,
  PRIMARY KEY ("id"),
  FOREIGN KEY ("network_id") REFERENCES "networks" ("id"),
  FOREIGN KEY ("standard_attr_id") REFERENCES "standardattributes" ("id")
);

CREATE TABLE "portsecuritybindings" (
  "port_id" VARCHAR(36) NOT NULL,
  "port_security_enabled" SMALLINT NOT NULL,
  PRIMARY KEY ("port_id"),
  FOREIGN KEY ("port_id") REFERENCES "ports" ("id")
);

CREATE TABLE "providerresourceassociations" (
  "provider_name" VARCHAR(255) NOT NULL,
  "resource_id" VARCHAR(36) NOT NULL,
  PRIMARY KEY ("resource_id", "provider_name")
);

CREATE TABLE "qos_bandwidth_limit_rules" (
  "id" VARCHAR(36) NOT NULL,
  "qos_policy_id" VARCHAR(36) NOT NULL,
  "max_kbps" INTEGER,
  "max_burst_kbps" INTEGER,
  PRIMARY KEY ("id"),
  FOREIGN KEY ("qos_policy_id") REFERENCES "qos_policies" ("id")
);

CREATE TABLE "qos_network_policy_bindings" (
  "policy_id" VARCHAR(36) NOT NULL,
  "network_id" VARCHAR(36) NOT NULL,
  FOREIGN KEY ("policy_id") REFERENCES "qos_policies" ("id"),
  FOREIGN KEY ("network_id") REFERENCES "networks" ("id")
);

CREATE TABLE "qos_policies" (
  "id" VARCHAR(36) NOT NULL,
  "name" VARCHAR(255),
  "description" VARCHAR(255),
  "tenant_id" VARCHAR(255),
  PRIMARY KEY ("id")
);

CREATE TABLE "qos_port_policy_bindings" (
  "policy_id" VARCHAR(36) NOT NULL,
  "port_id" VARCHAR(36) NOT NULL,
  FOREIGN KEY ("policy_id") REFERENCES "qos_policies" ("id"),
  FOREIGN KEY ("port_id") REFERENCES "ports" ("id")
);

CREATE TABLE "qospolicyrbacs" (
  "id" VARCHAR(36) NOT NULL,
  "tenant_id" VARCHAR(255),
  "target_tenant" VARCHAR(255) NOT NULL,
  "action" VARCHAR(255) NOT NULL,
  "object_id" VARCHAR(36) NOT NULL,
  PRIMARY KEY ("id"),
  FOREIGN KEY ("object_id") REFERENCES "qos_policies" ("id")
);

CREATE TABLE "qosqueues" (
  "tenant_id" VARCHAR(255),
  "id" VARCHAR(36) NOT NULL,
  "name" VARCHAR(255),
  "default" SMALLINT,
  "min" INTEGER NOT NULL,
  "max" INTEGER,
  "qos_marking" TEXT,
  "dscp" INTEGER,
  PRIMARY KEY ("id")
);

CREATE TABLE "quotas" (
  "id" VARCHAR(36) NOT NULL,
  "tenant_id" VARCHAR(255),
  "resource" VARCHAR(255),
  "limit" INTEGER,
  PRIMARY KEY ("id")
);

CREATE TABLE "quotausages" (
  "tenant_id" VARCHAR(255) NOT NULL,
  "resource" VARCHAR(255) NOT NULL,
  "dirty" SMALLINT NOT NULL,
  "in_use" INTEGER NOT NULL,
  "reserved" INTEGER NOT NULL,
  PRIMARY KEY ("resource", "tenant_id")
);

CREATE TABLE "reservations" (
  "id" VARCHAR(36) NOT NULL,
  "tenant_id" VARCHAR(255),
  "expiration" TIMESTAMP,
  PRIMARY KEY ("id")
);

CREATE TABLE "resourcedeltas" (
  "resource" VARCHAR(255) NOT NULL,
  "reservation_id" VARCHAR(36) NOT NULL,
  "amount" INTEGER,
  PRIMARY KEY ("resource", "reservation_id"),
  FOREIGN KEY ("reservation_id") REFERENCES "reservations" ("id")
);

CREATE TABLE "router_extra_attributes" (
  "router_id" VARCHAR(36) NOT NULL,
  "distributed" SMALLINT NOT NULL,
  "service_router" SMALLINT NOT NULL,
  "ha" SMALLINT NOT NULL,
  "ha_vr_id" INTEGER,
  "availability_zone_hints" VARCHAR(255),
  PRIMARY KEY ("router_id"),
  FOREIGN KEY ("router_id") REFERENCES "routers" ("id")
);

CREATE TABLE "routerl3agentbindings" (
  "router_id" VARCHAR(36) NOT NULL,
  "l3_agent_id" VARCHAR(36) NOT NULL,
  PRIMARY KEY ("router_id", "l3_agent_id"),
  FOREIGN KEY ("router_id") REFERENCES "routers" ("id"),
  FOREIGN KEY ("l3_agent_id") REFERENCES "agents" ("id")
);

CREATE TABLE "routerports" (
  "router_id" VARCHAR(36) NOT NULL,
  "port_id" VARCHAR(36) NOT NULL,
  "port_type" VARCHAR(255),
  PRIMARY KEY ("port_id", "router_id"),
  FOREIGN KEY ("router_id") REFERENCES "routers" ("id"),
  FOREIGN KEY ("port_id") REFERENCES "ports" ("id")
);

CREATE TABLE "routerroutes" (
  "destination" VARCHAR(64) NOT NULL,
  "nexthop" VARCHAR(64) NOT NULL,
  "router_id" VARCHAR(36) NOT NULL,
  PRIMARY KEY ("router_id", "destination", "nexthop"),
  FOREIGN KEY ("router_id") REFERENCES "routers" ("id")
);

CREATE TABLE "routerrules" (
  "id" INTEGER NOT NULL,
  "source" VARCHAR(64) NOT NULL,
  "destination" VARCHAR(64) NOT NULL,
  "action" VARCHAR(10) NOT NULL,
  "router_id" VARCHAR(36),
  PRIMARY KEY ("id"),
  FOREIGN KEY ("router_id") REFERENCES "routers" ("id")
);

CREATE TABLE "routers" (
  "tenant_id" VARCHAR(255),
  "id" VARCHAR(36) NOT NULL,
  "name" VARCHAR(255),
  "status" VARCHAR(16),
  "admin_state_up" SMALLINT,
  "gw_port_id" VARCHAR(36),
  "enable_snat" SMALLINT NOT NULL,
  "standard_attr_id" BIGINT NOT NULL,
  PRIMARY KEY ("id"),
  FOREIGN KEY ("gw_port_id") REFERENCES "ports" ("id"),
  FOREIGN KEY ("standard_attr_id") REFERENCES "standardattributes" ("id")
);

CREATE TABLE "securitygroupportbindings" (
  "port_id" VARCHAR(36) NOT NULL,
  "security_group_id" VARCHAR(36) NOT NULL,
  PRIMARY KEY ("port_id", "security_group_id"),
  FOREIGN KEY ("port_id") REFERENCES "ports" ("id"),
  FOREIGN KEY ("security_group_id") REFERENCES "securitygroups" ("id")
);

CREATE TABLE "securitygrouprules" (
  "tenant_id" VARCHAR(255),
  "id" VARCHAR(36) NOT NULL,
  "security_group_id" VARCHAR(36) NOT NULL,
  "remote_group_id" VARCHAR(36),
  "direction" TEXT,
  "ethertype" VARCHAR(40),
  "protocol" VARCHAR(40),
  "port_range_min" INTEGER,
  "port_range_max" INTEGER,
  "remote_ip_prefix" VARCHAR(255),
  "standard_attr_id" BIGINT NOT NULL,
  PRIMARY KEY ("id"),
  FOREIGN KEY ("security_group_id") REFERENCES "securitygroups" ("id"),
  FOREIGN KEY ("remote_group_id") REFERENCES "securitygroups" ("id"),
  FOREIGN KEY ("standard_attr_id") REFERENCES "standardattributes" ("id")
);

CREATE TABLE "securitygroups" (
  "tenant_id" VARCHAR(255),
  "id" VARCHAR(36) NOT NULL,
  "name" VARCHAR(255),
  "standard_attr_id" BIGINT NOT NULL,
  PRIMARY KEY ("id"),
  FOREIGN KEY ("standard_attr_id") REFERENCES "standardattributes" ("id")
);

CREATE TABLE "serviceprofiles" (
  "id" VARCHAR(36) NOT NULL,
  "description" VARCHAR(1024),
  "driver" VARCHAR(1024) NOT NULL,
  "enabled" SMALLINT NOT NULL,
  "metainfo" VARCHAR(4096),
  PRIMARY KEY ("id")
);

CREATE TABLE "sessionpersistences" (
  "vip_id" VARCHAR(36) NOT NULL,
  "type" TEXT NOT NULL,
  "cookie_name" VARCHAR(1024),
  PRIMARY KEY ("vip_id"),
  FOREIGN KEY ("vip_id") REFERENCES "vips" ("id")
);

CREATE TABLE "standardattributes" (
  "id" BIGINT NOT NULL,
  "resource_type" VARCHAR(255) NOT NULL,
  "created_at" TIMESTAMP,
  "updated_at" TIMESTAMP,
  "description" VARCHAR(255),
  PRIMARY KEY ("id")
);

CREATE TABLE "subnetpoolprefixes" (
  "cidr" VARCHAR(64) NOT NULL,
  "subnetpool_id" VARCHAR(36) NOT NULL,
  PRIMARY KEY ("cidr", "subnetpool_id"),
  FOREIGN KEY ("subnetpool_id") REFERENCES "subnetpools" ("id")
);

CREATE TABLE "subnetpools" (
  "tenant_id" VARCHAR(255),
  "id" VARCHAR(36) NOT NULL,
  "name" VARCHAR(255),
  "ip_version" INTEGER NOT NULL,
  "default_prefixlen" INTEGER NOT NULL,
  "min_prefixlen" INTEGER NOT NULL,
  "max_prefixlen" INTEGER NOT NULL,
  "shared" SMALLINT NOT NULL,
  "default_quota" INTEGER,
  "hash" VARCHAR(36) NOT NULL,
  "address_scope_id" VARCHAR(36),
  "is_default" SMALLINT NOT NULL,
  "standard_attr_id" BIGINT NOT NULL,
  PRIMARY KEY ("id"),
  FOREIGN KEY ("standard_attr_id") REFERENCES "standardattributes" ("id")
);

CREATE TABLE "subnetroutes" (
  "destination" VARCHAR(64) NOT NULL,
  "nexthop" VARCHAR(64) NOT NULL,
  "subnet_id" VARCHAR(36) NOT NULL,
  PRIMARY KEY ("destination", "nexthop", "subnet_id"),
  FOREIGN KEY ("subnet_id") REFERENCES "subnets" ("id")
);

CREATE TABLE "subnets" (
  "tenant_id" VARCHAR(255),
  "id" VARCHAR(36) NOT NULL,
  "name" VARCHAR(255),
  "network_id" VARCHAR(36),
  "ip_version" INTEGER NOT NULL,
  "cidr" VARCHAR(64) NOT NULL,
  "gateway_ip" VARCHAR(64),
  "enable_dhcp" SMALLINT,
  "ipv6_ra_mode" TEXT,
  "ipv6_address_mode" TEXT,
  "subnetpool_id" VARCHAR(36),
  "standard_attr_id" BIGINT NOT NULL,
  PRIMARY KEY ("id"),
  FOREIGN KEY ("network_id") REFERENCES "networks" ("id"),
  FOREIGN KEY ("standard_attr_id") REFERENCES "standardattributes" ("id")
);

CREATE TABLE "tags" (
  "standard_attr_id" BIGINT NOT NULL,
  "tag" VARCHAR(60) NOT NULL,
  PRIMARY KEY ("tag", "standard_attr_id"),
  FOREIGN KEY ("standard_attr_id") REFERENCES "standardattributes" ("id")
);

CREATE TABLE "tz_network_bindings" (
  "network_id" VARCHAR(36) NOT NULL,
  "binding_type" TEXT NOT NULL,
  "phy_uuid" VARCHAR(36) NOT NULL,
  "vlan_id" INTEGER NOT NULL,
  PRIMARY KEY ("phy_uuid", "vlan_id", "network_id", "binding_type"),
  FOREIGN KEY ("network_id") REFERENCES "networks" ("id")
);

CREATE TABLE "vcns_router_bindings" (
  "status" VARCHAR(16) NOT NULL,
  "status_description" VARCHAR(255),
  "router_id" VARCHAR(36) NOT NULL,
  "edge_id" VARCHAR(16),
  "lswitch_id" VARCHAR(36) NOT NULL,
  PRIMARY KEY ("router_id")
);

CREATE TABLE "vips" (
  "tenant_id" VARCHAR(255),
  "id" VARCHAR(36) NOT NULL,
  "name" VARCHAR(255),
  "description" VARCHAR(255),
  "port_id" VARCHAR(36),
  "protocol_port" INTEGER NOT NULL,
  "protocol" TEXT NOT NULL,
  "pool_id" VARCHAR(36) NOT NULL,
  "status" VARCHAR(16) NOT NULL,
  "status_description" VARCHAR(255),
  "admin_state_up" SMALLINT NOT NULL,
  "connection_limit" INTEGER,
  PRIMARY KEY ("id"),
  FOREIGN KEY ("port_id") REFERENCES "ports" ("id")
);

CREATE TABLE "vpnservices" (
  "tenant_id" VARCHAR(255),
  "id" VARCHAR(36) NOT NULL,
  "name" VARCHAR(255),
  "description" VARCHAR(255),
  "status" VARCHAR(16) NOT NULL,
  "admin_state_up" SMALLINT NOT NULL,
  "subnet_id" VARCHAR(36) NOT NULL,
  "router_id" VARCHAR(36) NOT NULL,
  PRIMARY KEY ("id"),
  FOREIGN KEY ("subnet_id") REFERENCES "subnets" ("id"),
  FOREIGN KEY ("router_id") REFERENCES "routers" ("id")
);

