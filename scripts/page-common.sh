# Shared setup of scripts/page-ab.sh and scripts/page-instructions.sh (sourced, not run; page.sh
# takes `page_checkpoint` from it):
#
#   . scripts/page-common.sh; page_setup TOOL...
#
# checks DATABASE_URL (an ingested database) and TEU_KEY (an API key of its account), checks
# that each TOOL is installed, makes the scratch directory `$work` (removed on exit, with the
# server `$server` stopped if one runs), and writes there `graphql.json`: the GraphQL body of
# scripts/page.sh, taken from it so that every script asks the same page; then
# `page_checkpoint`.
page_setup() {
  : "${DATABASE_URL:?an ingested database}" "${TEU_KEY:?an API key of its account}"
  local tool
  for tool in "$@"; do
    which "$tool" >/dev/null || { echo "$tool is missing: apt-get install $tool" >&2; exit 1; }
  done
  work=$(mktemp -d)
  server=""
  trap '[ -n "$server" ] && kill "$server" 2>/dev/null; rm -rf "$work"' EXIT
  eval "$(sed -n '/^container_fields=/,/^graphql_body=/p' scripts/page.sh)"
  printf '%s' "$graphql_body" >"$work/graphql.json"
  page_checkpoint
}

# On PostgreSQL (DATABASE_URL), writes the buffers an ingest dirtied before anything is
# measured: after the million the server spreads its checkpoint over minutes
# (`checkpoint_completion_target`), and pages measured during it ran slower than after it
# (`/v2` by 5%, GraphQL by 24%: README, "Sixty-ninth session"). Needs a superuser or the
# `pg_checkpoint` role; without one the pages are measured as they are, with a warning.
page_checkpoint() {
  case $DATABASE_URL in
    postgres*)
      local why
      why=$(psql "$DATABASE_URL" -qc CHECKPOINT 2>&1 >/dev/null) ||
        echo "CHECKPOINT refused (${why:-no reason given}); measuring without it" >&2 ;;
  esac
}
