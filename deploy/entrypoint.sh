#!/bin/sh
# Builds the state URLs from the secret files (so no password sits in compose.yaml or in
# `docker inspect`), installs the shared API token, then runs the command.
set -eu
umask 077
redis_password=$(cat /run/secrets/redis-password)
postgres_password=$(cat /run/secrets/postgres-password)
export SPYGLASS_STATE__REDIS_URL="redis://:${redis_password}@${SPYGLASS_REDIS_HOST:-redis}:6379/0"
export SPYGLASS_STATE__DATABASE_URL="postgresql://spyglass:${postgres_password}@${SPYGLASS_POSTGRES_HOST:-postgres}:5432/spyglass"
# Every instance must accept the same token: copy the one secret into this home.
cp /run/secrets/api-token "$SPYGLASS_HOME/api-token"
exec "$@"
