# Shared setup of scripts/page-ab.sh and scripts/page-instructions.sh (sourced, not run):
#
#   . scripts/page-common.sh; page_setup TOOL...
#
# checks DATABASE_URL (an ingested database) and TEU_KEY (an API key of its account), checks
# that each TOOL is installed, makes the scratch directory `$work` (removed on exit, with the
# server `$server` stopped if one runs), and writes there `graphql.json`: the GraphQL body of
# scripts/page.sh, taken from it so that every script asks the same page.
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
}
