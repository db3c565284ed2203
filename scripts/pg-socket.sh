# Sourced by scripts/services.sh and scripts/chaos.sh. FerretDB reaches a PostgreSQL on this machine
# through its Unix socket rather than TCP: over loopback (MTU 65536) a result larger than FerretDB's
# receive window stalled about 200 ms on the kernel's zero-window probe timer, one page read in about
# thirty under load (docs/architecture.md, "FerretDB 1.24: what the code works around").

# pg_via_socket URL: prints URL (postgres://user@host:port/db[?params]) with `host=` set to the
# server's socket directory when the server is on loopback and its socket is there; else URL as is.
pg_via_socket() {
  local url=$1 server hostport dir
  server=${url%%\?*}
  server=${server%/*}
  hostport=${server#*@}
  case "${hostport%:*}" in 127.0.0.1 | localhost) ;; *) echo "$url"; return 0 ;; esac
  dir=$(psql "$server/postgres" -tAc 'show unix_socket_directories' 2>/dev/null | cut -d, -f1 | xargs) || true
  if [ -n "$dir" ] && [ -S "$dir/.s.PGSQL.${hostport##*:}" ]; then
    case "$url" in *\?*) url="$url&host=$dir" ;; *) url="$url?host=$dir" ;; esac
  fi
  echo "$url"
}
