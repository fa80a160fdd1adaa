#!/bin/sh
# Temporal's own role and databases, apart from the service's (docker-compose.yml mounts this into
# the postgres image's /docker-entrypoint-initdb.d, which runs it once, on an empty data volume).
# The role may use its two databases and nothing else: no superuser, no new databases or roles,
# no way into partner_payments. The service's roles are `npm run migrate`'s (db/database-roles.ts).
set -eu
psql --set ON_ERROR_STOP=1 --username "$POSTGRES_USER" --dbname postgres \
  --set temporal_password="$TEMPORAL_DB_PASSWORD" <<'SQL'
create role temporal login nosuperuser nocreatedb nocreaterole noreplication nobypassrls password :'temporal_password';
create database temporal owner temporal;
create database temporal_visibility owner temporal;
revoke all on database temporal, temporal_visibility from public;
revoke all on database partner_payments from public;
SQL
