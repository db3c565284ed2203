# Sourced by the development scripts (start, test, token, bench).
# FerretDB (the local MongoDB-wire server) deadlocks when more operations arrive than its PostgreSQL
# pool can serve, so local runs cap the driver's pool here too, for the tools that open their own
# client (Kairos itself caps it when buildInfo says FerretDB); set MONGO_URL yourself for another server.
if [ -z "${MONGO_URL:-}" ]; then
  export MONGO_URL='mongodb://127.0.0.1:27017/kairos?maxPoolSize=10'
fi
# A JWT secret for local use, generated once into .data/ (git-ignored).
# A JWT_SECRET or JWT_PUBLIC_KEY already in the environment wins.
if [ -z "${JWT_SECRET:-}" ] && [ -z "${JWT_PUBLIC_KEY:-}" ]; then
  mkdir -p .data
  [ -s .data/dev-jwt-secret ] || node -e "process.stdout.write(require('crypto').randomBytes(32).toString('base64url'))" > .data/dev-jwt-secret
  JWT_SECRET=$(cat .data/dev-jwt-secret)
  export JWT_SECRET
fi
