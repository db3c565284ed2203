# Sourced by the development scripts: a JWT secret for local use, generated once into .data/ (git-ignored).
# A JWT_SECRET or JWT_PUBLIC_KEY already in the environment wins.
if [ -z "${JWT_SECRET:-}" ] && [ -z "${JWT_PUBLIC_KEY:-}" ]; then
  mkdir -p .data
  [ -s .data/dev-jwt-secret ] || node -e "process.stdout.write(require('crypto').randomBytes(32).toString('base64url'))" > .data/dev-jwt-secret
  JWT_SECRET=$(cat .data/dev-jwt-secret)
  export JWT_SECRET
fi
