#!/usr/bin/env bash
# Starts a ClickHouse server for Lore's tests (Debian's clickhouse-server
# package), unless one already answers on 127.0.0.1:8123, and prints the
# URL the tests read as LORE_TEST_CLICKHOUSE_URL.
#
# The server keeps its data, logs and configuration under
# ${LORE_CLICKHOUSE_DIR:-$HOME/.cache/lore-clickhouse} and listens on
# loopback only. Its user `lore` (password `lore-test-secret`) may write:
# the tests create their fixtures with it, and Lore's own queries are held
# read-only by the `readonly=1` setting they are sent with.
set -euo pipefail

dir="${LORE_CLICKHOUSE_DIR:-$HOME/.cache/lore-clickhouse}"
url="http://lore:lore-test-secret@127.0.0.1:8123/default"

answers() {
  curl -s --max-time 2 -u lore:lore-test-secret \
    'http://127.0.0.1:8123/?query=SELECT%201' 2>/dev/null | grep -q '^1$'
}

if answers; then
  echo "$url"
  exit 0
fi
command -v clickhouse-server >/dev/null 2>&1 || { echo "clickhouse-server is not installed" >&2; exit 1; }

mkdir -p "$dir/data" "$dir/tmp" "$dir/user_files" "$dir/log" "$dir/format_schemas"
cat > "$dir/config.xml" <<XML
<?xml version="1.0"?>
<yandex>
    <logger>
        <level>warning</level>
        <log>$dir/log/server.log</log>
        <errorlog>$dir/log/server.err.log</errorlog>
        <size>10M</size>
        <count>2</count>
    </logger>
    <listen_host>127.0.0.1</listen_host>
    <http_port>8123</http_port>
    <tcp_port>19000</tcp_port>
    <max_connections>256</max_connections>
    <keep_alive_timeout>3</keep_alive_timeout>
    <max_concurrent_queries>100</max_concurrent_queries>
    <uncompressed_cache_size>268435456</uncompressed_cache_size>
    <mark_cache_size>268435456</mark_cache_size>
    <path>$dir/data/</path>
    <tmp_path>$dir/tmp/</tmp_path>
    <user_files_path>$dir/user_files/</user_files_path>
    <format_schema_path>$dir/format_schemas/</format_schema_path>
    <users_config>$dir/users.xml</users_config>
    <default_profile>default</default_profile>
    <default_database>default</default_database>
    <timezone>UTC</timezone>
    <mlock_executable>false</mlock_executable>
</yandex>
XML
cat > "$dir/users.xml" <<XML
<?xml version="1.0"?>
<yandex>
    <profiles>
        <default>
            <max_memory_usage>4000000000</max_memory_usage>
        </default>
        <reader>
            <max_memory_usage>4000000000</max_memory_usage>
            <readonly>2</readonly>
        </reader>
        <strict>
            <readonly>1</readonly>
        </strict>
        <budget>
            <max_rows_to_read>1000</max_rows_to_read>
            <read_overflow_mode>throw</read_overflow_mode>
        </budget>
    </profiles>
    <users>
        <lore>
            <password>lore-test-secret</password>
            <networks><ip>127.0.0.1</ip><ip>::1</ip></networks>
            <profile>default</profile>
            <quota>default</quota>
        </lore>
        <lore_limited>
            <password>lore-test-secret</password>
            <networks><ip>127.0.0.1</ip><ip>::1</ip></networks>
            <profile>default</profile>
            <quota>default</quota>
            <allow_databases><database>default</database></allow_databases>
        </lore_limited>
        <lore_reader>
            <password>lore-test-secret</password>
            <networks><ip>127.0.0.1</ip><ip>::1</ip></networks>
            <profile>reader</profile>
            <quota>default</quota>
        </lore_reader>
        <lore_strict>
            <password>lore-test-secret</password>
            <networks><ip>127.0.0.1</ip><ip>::1</ip></networks>
            <profile>strict</profile>
            <quota>default</quota>
        </lore_strict>
        <lore_budget>
            <password>lore-test-secret</password>
            <networks><ip>127.0.0.1</ip><ip>::1</ip></networks>
            <profile>budget</profile>
            <quota>default</quota>
        </lore_budget>
    </users>
    <quotas>
        <default>
            <interval>
                <duration>3600</duration>
                <queries>0</queries>
                <errors>0</errors>
                <result_rows>0</result_rows>
                <read_rows>0</read_rows>
                <execution_time>0</execution_time>
            </interval>
        </default>
    </quotas>
</yandex>
XML

# The server runs in the background and outlives this script.
nohup clickhouse-server --config-file="$dir/config.xml" \
  >"$dir/log/stdout.log" 2>&1 </dev/null &
for _ in $(seq 1 60); do
  if answers; then
    echo "$url"
    exit 0
  fi
  sleep 1
done
echo "clickhouse-server did not answer on 127.0.0.1:8123 within 60 s; see $dir/log" >&2
exit 1
